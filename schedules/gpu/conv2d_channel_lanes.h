// The GPU schedule of the channel-lanes convolution (generators/conv2d_channel_lanes.h, its GPU
// form; knobs and default rule in conv2d_channel_lanes_space.h). A thread's register tile is
// `channels` output channels, every (panel / channels)-th of a panel, by `rows` consecutive
// pixels of one image, summed over the whole (kx, ky, ci) reduction. The threads of a panel are
// the innermost thread dimension, so within a warp each reduction step loads contiguous runs of
// packed weights and one input value per pixel that every thread shares (a broadcast); narrow
// maps fill the warp as well as wide ones, and the blocks of a batch read the same panel of
// weights through the caches. The tiles are written per thread (by_thread) and a second kernel
// copies them into the output's channel order. Layers with few tiles and a long reduction split
// the input channels `split_k` ways (rfactor): a first kernel sums each share into `partial`,
// the tile adds the shares. The padded input is materialised by its own kernel so the inner
// loads are unguarded. On the H100 it reached 10.2 TFLOP/s, 16% of the FFMA peak, on b20
// 384>1024 3x3 on 6x6 (the register tile: 6.3; cuDNN: 20.5); docs/PERFORMANCE.md.
#pragma once

#include <vector>

#include "generators/conv2d_channel_lanes.h"
#include "schedules/gpu/conv2d_split_k.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

struct ChannelLanesTile {
    int channels, panel, rows, threads_q, split_k;
};

// Tiles f(lane, q, n, panel[, u]), whose `panel` is a thread's slot (panel of the weights x
// threads + thread), into threads of one register tile each: the slots of a panel side by side,
// then `threads_q` pixel tiles; blocks over pixel tiles, panels, images[, shares]. Returns the
// thread var.
inline Halide::Var tile_by_threads(Halide::Func f, Halide::Var lane, Halide::Var q, Halide::Var n, Halide::Var panel,
                                   const std::vector<Halide::Var> &extra, const Conv2dShape &s,
                                   const ChannelLanesTile &t) {
    using namespace Halide;
    Var qo{"qo"}, qi{"qi"}, qt{"qt"}, qb{"qb"}, co{"co"}, thread{"thread"}, block{"block"};
    f.split(panel, co, thread, t.panel / t.channels)
        .split(q, qo, qi, fitting(t.rows, s.out_w * s.out_h), TailStrategy::ShiftInwards)
        .split(qo, qb, qt, t.threads_q, TailStrategy::GuardWithIf)
        .reorder(lane, qi, thread, qt, qb, co, n)
        .fuse(co, n, block);
    for (const Var &v : extra) f.fuse(block, v, block);
    f.gpu_blocks(qb, block).gpu_threads(thread, qt).unroll(qi).unroll(lane);
    return thread;
}

inline void schedule_conv2d_channel_lanes(Conv2dChannelLanes &a, const Conv2dShape &s, const ChannelLanesTile &t) {
    using namespace Halide;
    if (s.pad_h > 0 || s.pad_w > 0) {
        Var x{"x"}, y{"y"}, c{"c"}, n{"n"};  // define_padded's names
        a.padded.compute_root();
        tile_2d(a.padded, x, y, s.in_w + 2 * s.pad_w, s.in_h + 2 * s.pad_h, c, n);
    }
    const int pixels = s.out_w * s.out_h;
    Var qo{"qo"}, qi{"qi"}, qt{"qt"}, qb{"qb"}, block{"block"};
    // A warp's stores at one pixel and lane are one contiguous run.
    a.by_thread.compute_root()
        .reorder_storage(a.t, a.q, a.lane, a.panel, a.n)
        .split(a.q, qo, qi, fitting(t.rows, pixels), TailStrategy::ShiftInwards)
        .split(qo, qb, qt, t.threads_q, TailStrategy::GuardWithIf)
        .reorder(qi, a.lane, a.t, qt, qb, a.panel, a.n)
        .fuse(a.panel, a.n, block)
        .gpu_blocks(qb, block)
        .gpu_threads(a.t, qt)
        .unroll(qi)
        .unroll(a.lane);
    // The tile's accumulators live in registers: every loop over them is unrolled.
    a.tile.compute_at(a.by_thread, a.t)
        .bound_extent(a.lane, t.channels)
        .bound_extent(a.panel, 1)
        .store_in(MemoryType::Register)
        .unroll(a.lane)
        .unroll(a.q);
    tile_2d(a.output, a.q, a.c, pixels, s.out_channels, a.n, a.unit);
    if (t.split_k <= 1) {
        a.tile.update().reorder(a.lane, a.q, a.r.x, a.r.y, a.r.z, a.n, a.panel).unroll(a.lane).unroll(a.q);
        if (s.kernel_w <= 5) a.tile.update().unroll(a.r.x);
        return;
    }
    const SplitK split = split_input_channels(a.tile, a.r.z, s, t.split_k);
    a.tile.update().reorder(a.lane, a.q, split.share, a.n, a.panel).unroll(a.lane).unroll(a.q).unroll(split.share);
    // The shares as their own kernel, stored with the thread slots innermost (coalesced).
    Func partial = split.partial, partial_tile = split.partial_tile;
    partial_tile.reorder_storage(a.panel, a.lane, a.q, a.n, split.u);
    const Var thread = tile_by_threads(partial_tile, a.lane, a.q, a.n, a.panel, {split.u}, s, t);
    partial.compute_at(partial_tile, thread)
        .bound_extent(a.lane, t.channels)
        .store_in(MemoryType::Register)
        .unroll(a.lane)
        .unroll(a.q);
    partial.update().reorder(a.lane, a.q, a.r.x, a.r.y, split.within, a.n, a.panel, split.u).unroll(a.lane).unroll(a.q);
    if (s.kernel_w <= 5) partial.update().unroll(a.r.x);
}

}  // namespace cortado::schedules::gpu
