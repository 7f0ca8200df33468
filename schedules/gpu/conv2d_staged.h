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
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

struct StagedConvTile {
    int cols, rows, channels;            // one thread's register tile
    int threads_x, threads_y, threads_c;  // threads of a block along x, y and output channels
    int stage_channels;                  // input channels per shared-memory chunk
    int split_k;                         // shares of the input channels (1: no split)

    int block_w() const { return threads_x * cols; }
    int block_h() const { return threads_y * rows; }
    int block_c() const { return threads_c * channels; }
    int threads() const { return threads_x * threads_y * threads_c; }
};

// Floats of shared memory one block stages per chunk.
inline long staged_floats(const Conv2dShape &s, const StagedConvTile &t) {
    const long window_w = long(t.block_w() - 1) * s.stride_w + long(s.kernel_w - 1) * s.dilation_w + 1;
    const long window_h = long(t.block_h() - 1) * s.stride_h + long(s.kernel_h - 1) * s.dilation_h + 1;
    return (window_w * window_h + long(s.kernel_w) * s.kernel_h * t.block_c()) * t.stage_channels;
}

// Shared memory one block may use: the 48 KiB that CUDA and OpenCL grant without opt-in.
constexpr long kSharedFloats = 48 * 1024 / 4;

// The smallest extent >= `extent` that whole tiles of `tile` cover, relative to `extent`:
// ShiftInwards recomputes the overlap, so this is the work a tile size costs.
inline double covered_fraction(int extent, int tile) {
    return double((extent + tile - 1) / tile * tile) / extent;
}

// The tile size in [low, high] (never above `extent`) that wastes least, larger on ties.
inline int least_waste_tile(int extent, int low, int high) {
    int best = std::min(low, extent);
    for (int tile = best; tile <= std::min(high, extent); tile++)
        if (covered_fraction(extent, tile) <= covered_fraction(extent, best)) best = tile;
    return best;
}

// Shares and chunks must divide the input channels exactly: a partial chunk would make the
// staged copies read weights past the input channels (bounds ignore the split's guard).
inline int largest_divisor_up_to(int n, int limit) {
    int d = std::max(1, std::min(limit, n));
    while (n % d != 0) d--;
    return d;
}

// Floats of shared memory one block uses: its running sums plus one staged chunk.
inline long shared_floats(const Conv2dShape &s, const StagedConvTile &t) {
    return long(t.block_w()) * t.block_h() * t.block_c() + staged_floats(s, t);
}

// A tile for the shape: 8 output channels x up to 8 rows per thread, whole rows of up to 32
// x positions per block, as many channel groups as keep the block within 256 threads and the
// shared-memory budget; then split the input channels until about `target_threads` run.
inline StagedConvTile staged_tile_for(const Conv2dShape &s, int target_threads) {
    StagedConvTile t{};
    t.cols = 1;
    t.threads_x = least_waste_tile(s.out_w, 8, 32);
    t.rows = least_waste_tile(s.out_h, 4, 8);
    // Row groups per block: a divisor of the map's row groups, so block tiles do not overlap.
    const int row_groups = (s.out_h + t.rows - 1) / t.rows;
    t.threads_y = std::max(1, std::min(row_groups, 64 / t.threads_x));
    while (row_groups % t.threads_y != 0 || t.rows * t.threads_y > s.out_h) t.threads_y--;
    t.channels = largest_divisor_up_to(s.out_channels, 8);
    // 4 channels per chunk: Overfeat L6 ran 5% faster than with 8 (smaller blocks, more per SM).
    t.stage_channels = largest_divisor_up_to(s.in_channels, 4);
    t.threads_c = 1;
    while (t.threads() * 2 <= 256 && s.out_channels % (t.block_c() * 2) == 0) {
        StagedConvTile wider = t;
        wider.threads_c *= 2;
        if (shared_floats(s, wider) > kSharedFloats) break;
        t = wider;
    }
    t.split_k = 1;
    const long blocks = long(s.batch) * ((s.out_w + t.block_w() - 1) / t.block_w()) *
                        ((s.out_h + t.block_h() - 1) / t.block_h()) *
                        ((s.out_channels + t.block_c() - 1) / t.block_c());
    while (blocks * t.threads() * t.split_k * 2 <= target_threads && s.in_channels % (t.split_k * 2) == 0 &&
           s.in_channels / (t.split_k * 2) >= 2 * t.stage_channels)
        t.split_k *= 2;
    t.stage_channels = largest_divisor_up_to(s.in_channels / t.split_k, t.stage_channels);
    return t;
}

// Splits the block-local x, y, c of one stage into per-thread register tiles; the thread loops
// are fused into one `thread` loop so that the copy loops below can share the same threads.
struct ThreadTileVars {
    Halide::Var xt{"xt"}, xr{"xr"}, yt{"yt"}, yr{"yr"}, ct{"ct"}, cr{"cr"}, xy{"xy"}, thread{"thread"};
};

inline void split_thread_tile(Halide::Stage stage, Halide::Var x, Halide::Var y, Halide::Var c,
                              const StagedConvTile &t, const ThreadTileVars &v) {
    using Halide::TailStrategy;
    stage.split(x, v.xt, v.xr, t.cols, TailStrategy::RoundUp)
        .split(y, v.yt, v.yr, t.rows, TailStrategy::RoundUp)
        .split(c, v.ct, v.cr, t.channels, TailStrategy::RoundUp);
}

inline void fuse_thread_tile(Halide::Stage stage, const ThreadTileVars &v) {
    stage.fuse(v.xt, v.yt, v.xy).fuse(v.xy, v.ct, v.thread).gpu_threads(v.thread).unroll(v.xr).unroll(v.yr).unroll(v.cr);
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
inline void stage_conv_reduction(Halide::Func total, Halide::Func sum, Halide::RVar rz, Conv2d &a,
                                 const Conv2dShape &s, const StagedConvTile &t,
                                 const std::vector<Halide::Var> &extra_blocks) {
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
    Func chunk_sum = sum.update()
                         .split(rz, chunk, within, t.stage_channels, TailStrategy::Auto)
                         .rfactor(chunk, chunk_index);
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
    const SplitK split = split_input_channels(a, s, t.split_k);
    stage_conv_reduction(split.partial_tile, split.partial, split.within, a, s, t, {split.u});
    const Var thread = sum_tile(a.output);
    a.conv.compute_at(a.output, thread).store_in(MemoryType::Register).unroll(a.x).unroll(a.y).unroll(a.c);
    a.conv.update().unroll(a.x).unroll(a.y).unroll(a.c);
}

}  // namespace cortado::schedules::gpu
