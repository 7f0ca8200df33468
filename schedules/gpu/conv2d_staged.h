// GPU conv2d with shared-memory staging (CUDA, OpenCL): each block owns an output tile of
// (threads_x*cols) x (threads_y*rows) positions x (threads_c*channels) output channels, keeps
// every thread's cols x rows x channels accumulators in registers, and walks the input
// channels in chunks of `stage_channels`: per chunk the block's threads copy the input window
// (padding applied on the copy, so no padded copy of the input is materialised) and the chunk's
// weights for the block's output channels into shared memory, synchronise, and run the
// multiply-adds from there. Each staged input value then serves up to kw x kh x threads_c*channels
// multiply-adds and each staged weight the block's whole tile, instead of every thread fetching
// both through L1 as in conv2d.h's register schedule. Layers with few outputs and a long
// reduction split the input channels `split_k` ways (rfactor); a small kernel adds the shares.
// Ungrouped layers only (conv2d.h says why), so channel counts below are whole-layer counts.
// Reached: Overfeat L6 at 22.6% of the H100 FFMA peak (cuDNN fp32: 19.3%); the register variant
// reaches 35.9% with a 128-register budget, so staging (the gpu_staged variant) is never the default;
// docs/PERFORMANCE.md.
#pragma once

#include <algorithm>
#include <vector>

#include "generators/conv2d.h"
#include "schedules/gpu/conv2d_split_k.h"
#include "schedules/gpu/conv2d_staged_tile.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

// Splits the block-local x, y, c of one stage into per-thread register tiles; the thread loops
// are fused into one `thread` loop so that the copy loops below can share the same threads.
struct ThreadTileVars {
    Halide::Var xt{"xt"}, xr{"xr"}, yt{"yt"}, yr{"yr"}, ct{"ct"}, cr{"cr"}, xy{"xy"}, thread{"thread"};
};

inline void split_thread_tile(Halide::Stage stage, Halide::Var x, Halide::Var y, Halide::Var c, const StagedConvTile &t,
                              const ThreadTileVars &v) {
    using Halide::TailStrategy;
    stage.split(x, v.xt, v.xr, t.cols, TailStrategy::RoundUp)
        .split(y, v.yt, v.yr, t.rows, TailStrategy::RoundUp)
        .split(c, v.ct, v.cr, t.channels, TailStrategy::RoundUp);
}

inline void fuse_thread_tile(Halide::Stage stage, const ThreadTileVars &v) {
    stage.fuse(v.xt, v.yt, v.xy)
        .fuse(v.xy, v.ct, v.thread)
        .gpu_threads(v.thread)
        .unroll(v.xr)
        .unroll(v.yr)
        .unroll(v.cr);
}

// A block-level copy into shared memory: all of `f`'s dimensions fused, spread over the block's threads.
inline void schedule_shared_copy(Halide::Func f, int threads) {
    using namespace Halide;
    std::vector<Var> args = f.args();
    Var all{"all"}, pass{"pass"}, lane{"lane"};
    f.fuse(args[0], args[1], all);
    for (size_t i = 2; i < args.size(); i++) f.fuse(all, args[i], all);
    // Passes inside the thread loop: one barrier per copy, coalesced reads in every pass.
    f.split(all, pass, lane, threads, TailStrategy::GuardWithIf).reorder(pass, lane).gpu_threads(lane).unroll(pass);
}

// `total` (x, y, c, n[, extra]) is tiled into blocks; `sum` (bias + reduction, or one share of
// it) is computed per block in registers, with its reduction over `rz` staged in chunks.
inline void stage_conv_reduction(Halide::Func total, Halide::Func sum, Halide::RVar rz, Conv2d &a, const Conv2dShape &s,
                                 const StagedConvTile &t, const std::vector<Halide::Var> &extra_blocks) {
    using namespace Halide;
    Var xb{"xb"}, xin{"xin"}, yb{"yb"}, yin{"yin"}, cb{"cb"}, cin{"cin"}, block{"block"};
    ThreadTileVars v;
    total.split(a.x, xb, xin, t.block_w(), TailStrategy::ShiftInwards)
        .split(a.y, yb, yin, t.block_h(), TailStrategy::ShiftInwards)
        .split(a.c, cb, cin, t.block_c(), TailStrategy::ShiftInwards);
    split_thread_tile(total, xin, yin, cin, t, v);
    total.reorder(v.xr, v.yr, v.cr, v.xt, v.yt, v.ct, xb, yb, cb, a.n).fuse(cb, a.n, block);
    for (const Var &extra : extra_blocks) total.fuse(block, extra, block);
    total.gpu_blocks(xb, yb, block);
    fuse_thread_tile(total, v);

    // The block's running sums live in shared memory; each chunk's sums are taken in registers
    // (chunk_sum, per thread) and added once per chunk, so registers never hold the whole tile.
    sum.compute_at(total, xb);
    split_thread_tile(sum, a.x, a.y, a.c, t, v);
    sum.reorder(v.xr, v.yr, v.cr, v.xt, v.yt, v.ct);
    fuse_thread_tile(sum, v);

    RVar chunk{"chunk"}, within{"within"};
    Var chunk_index{"chunk_index"};
    Func chunk_sum =
        sum.update().split(rz, chunk, within, t.stage_channels, TailStrategy::Auto).rfactor(chunk, chunk_index);
    Stage add_chunk = sum.update();
    split_thread_tile(add_chunk, a.x, a.y, a.c, t, v);
    add_chunk.reorder(v.xr, v.yr, v.cr, v.xt, v.yt, v.ct, chunk);
    fuse_thread_tile(add_chunk, v);

    chunk_sum.compute_at(sum, v.thread).unroll(a.x).unroll(a.y).unroll(a.c);
    chunk_sum.update().reorder(a.x, a.y, a.c, a.r.x, a.r.y, within).unroll(a.x).unroll(a.y).unroll(a.c);
    if (s.kernel_w <= 5) chunk_sum.update().unroll(a.r.x);

    Func window = a.padded.in(chunk_sum), filter = a.weights.in(chunk_sum);
    for (Func staged : {window, filter}) {
        staged.compute_at(sum, chunk).store_in(MemoryType::GPUShared);
        schedule_shared_copy(staged, t.threads());
    }
}

// `sum_tile` tiles the output for the kernel that adds the shares (conv2d.h's register tiling).
template <typename TileOutput>
void schedule_conv2d_staged(Conv2d &a, const Conv2dShape &s, const StagedConvTile &t, TileOutput sum_tile) {
    using namespace Halide;
    if (t.split_k <= 1) {
        stage_conv_reduction(a.output, a.conv, a.r.z, a, s, t, {});
        return;
    }
    const SplitK split = split_input_channels(a.conv, a.r.z, s, t.split_k);
    stage_conv_reduction(split.partial_tile, split.partial, split.within, a, s, t, {split.u});
    const Var thread = sum_tile(a.output);
    a.conv.compute_at(a.output, thread).store_in(MemoryType::Register).unroll(a.x).unroll(a.y).unroll(a.c);
    a.conv.update().unroll(a.x).unroll(a.y).unroll(a.c);
}

}  // namespace cortado::schedules::gpu
