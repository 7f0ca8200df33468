// The staged GPU convolution's tile (conv2d_staged.h), chosen from the shape and whatever knobs
// are set, without Halide: the gpu_staged variant's default rule (space.h) and its schedule both
// call resolve_staged_tile, so the planner records the tile the kernel uses.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ops/conv2d.h"
#include "schedules/gpu/conv2d_tile_rule.h"
#include "schedules/gpu/fitting.h"

namespace cortado::schedules::gpu {

struct StagedConvTile {
    int cols, rows, channels;             // one thread's register tile
    int threads_x, threads_y, threads_c;  // threads of a block along x, y and output channels
    int stage_channels;                   // input channels per shared-memory chunk
    int split_k;                          // shares of the input channels (1: no split)

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
inline double covered_fraction(int extent, int tile) { return double((extent + tile - 1) / tile * tile) / extent; }

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

// The tile for `k`'s knobs, each one > 0 taking precedence over the shape's tile and then
// adjusted to fit: whole block tiles inside the map and the output channels (ShiftInwards),
// chunks that divide a share, and chunks shrunk until the block's shared memory fits. Throws
// std::invalid_argument when split_k does not divide the input channels. Resolving a resolved
// tile changes nothing.
inline StagedConvTile resolve_staged_tile(const Conv2dShape &s, const Conv2dKnobs &k) {
    StagedConvTile t = staged_tile_for(s, k.target_threads);
    const auto set = [](int &field, int knob, int extent) {
        if (knob > 0) field = fitting(knob, extent);
    };
    set(t.cols, k.cols, s.out_w);
    set(t.threads_x, k.threads_x, s.out_w / t.cols);
    set(t.rows, k.rows, s.out_h);
    set(t.threads_y, k.threads_y, s.out_h / t.rows);
    set(t.channels, k.channels, s.out_channels);
    set(t.threads_c, k.threads_c, s.out_channels / t.channels);
    set(t.split_k, k.split_k, s.in_channels);
    if (s.in_channels % t.split_k != 0)
        throw std::invalid_argument("split_k " + std::to_string(t.split_k) + " does not divide the " +
                                    std::to_string(s.in_channels) + " input channels");
    // A chunk must divide the share exactly; the largest such chunk up to the knob.
    if (k.stage_channels > 0) t.stage_channels = k.stage_channels;
    t.stage_channels = largest_divisor_up_to(s.in_channels / t.split_k, t.stage_channels);
    while (t.block_w() > s.out_w) t.threads_x > 1 ? t.threads_x-- : t.cols--;
    while (t.block_h() > s.out_h) t.threads_y > 1 ? t.threads_y-- : t.rows--;
    while (t.block_c() > s.out_channels) t.threads_c > 1 ? t.threads_c-- : t.channels--;
    // Chunks are "up to" the knob: large strided kernels have wide windows (AlexNet-style 11x11
    // stride 4 on 224x224: 59580 bytes with 3-channel chunks), so take smaller chunks until the
    // tile fits; a tile that does not fit with one channel per chunk is the caller's error.
    while (shared_floats(s, t) > kSharedFloats && t.stage_channels > 1)
        t.stage_channels = largest_divisor_up_to(s.in_channels / t.split_k, t.stage_channels - 1);
    return t;
}

}  // namespace cortado::schedules::gpu
