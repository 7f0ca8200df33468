// GPU schedules for conv2d (CUDA, OpenCL), two variants (space.h registers them):
// - gpu_staged, shared-memory staging (conv2d_staged.h): blocks stage input windows and weights
//   chunk by chunk; never the default (Conv2dKnobs::stage_channels says why);
// - gpu_register_tile (below): each thread owns a register tile of `channels` output channels x
//   `rows` output rows x `cols` adjacent x positions; a block is `threads_x` x-positions by
//   `threads_c` channel groups; inputs and weights come through the L1 cache. Layers with few
//   outputs and a long reduction split the input channels `split_k` ways (rfactor) so enough
//   threads run, then add the partial sums. The padded input is materialised by its own kernel.
//   The tile grows with the target's register budget (Conv2dKnobs::registers): Overfeat L6 ran
//   at 35.9% of the H100's FFMA peak with 128 registers, 24.1% with Halide's CUDA default of 64.
#pragma once

#include <algorithm>
#include <vector>

#include "generators/conv2d.h"
#include "schedules/gpu/conv2d_split_k.h"
#include "schedules/gpu/conv2d_staged.h"
#include "schedules/gpu/conv2d_tile_rule.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

// Unrolls the kernel loops of a register reduction: kx when the kernel is at most 5 wide; with
// 128 registers ky too, so that one input row serves every kernel row that reads it (10 rows
// of loads for 8 output rows x 3 kernel rows instead of 24; the body needs about 128 registers).
inline void unroll_kernel_window(Halide::Stage reduction, const Conv2d &a, const Conv2dShape &s, const Conv2dKnobs &k) {
    if (s.kernel_w > 5) return;
    reduction.unroll(a.r.x);
    if (k.registers >= 128 && s.kernel_h > 1 && s.kernel_h <= 5) reduction.unroll(a.r.y);
}

// Tiles `f` (x, y, c, n[, u]) into register tiles per thread and returns the thread's x var.
inline Halide::Var tile_conv_output(Halide::Func f, Halide::Var x, Halide::Var y, Halide::Var c, Halide::Var n,
                                    const Conv2dShape &s, const Conv2dKnobs &k,
                                    const std::vector<Halide::Var> &extra_blocks) {
    using namespace Halide;
    const int rows = fitting(k.rows, s.out_h), channels = fitting(k.channels, s.out_channels);
    const int cols = fitting(k.cols, s.out_w);
    const int threads_x = fitting(k.threads_x, s.out_w / cols);  // the x tile must fit the map
    const int threads_c = fitting(k.threads_c, (s.out_channels + channels - 1) / channels);
    Var xo{"xo"}, xi{"xi"}, xr{"xr"}, yo{"yo"}, yi{"yi"}, co{"co"}, ci{"ci"}, cb{"cb"}, ct{"ct"}, block{"block"};
    f.split(x, xo, xi, threads_x * cols, TailStrategy::ShiftInwards)
        .split(xi, xi, xr, cols, TailStrategy::ShiftInwards)
        .split(y, yo, yi, rows, TailStrategy::ShiftInwards)
        .split(c, co, ci, channels, TailStrategy::ShiftInwards)
        .split(co, cb, ct, threads_c, TailStrategy::ShiftInwards)
        .reorder(xr, yi, ci, xi, ct, xo, yo, cb, n)
        .fuse(cb, n, block);
    for (const Var &extra : extra_blocks) f.fuse(block, extra, block);
    f.gpu_blocks(xo, yo, block).gpu_threads(xi, ct).unroll(xr).unroll(yi).unroll(ci);
    return xi;
}

inline void schedule_conv2d_registers(Conv2d &a, const Conv2dShape &s, Conv2dKnobs k) {
    using namespace Halide;
    k = register_tile(s, k);
    if (k.split_k == 0) k.split_k = split_for(s, tile_threads(s, k.cols, k.rows, k.channels), k.target_threads);
    if (s.pad_h > 0 || s.pad_w > 0) {
        a.padded.compute_root();
        tile_2d(a.padded, a.x, a.y, s.in_w + 2 * s.pad_w, s.in_h + 2 * s.pad_h, a.c, a.n);
    }
    const Var thread = tile_conv_output(a.output, a.x, a.y, a.c, a.n, s, k, {});
    a.conv.compute_at(a.output, thread).store_in(MemoryType::Register).unroll(a.x).unroll(a.y).unroll(a.c);
    // In the reductions the output channels are the innermost loop: the multiply-adds that share
    // one input value run back to back. Overfeat L6 ran 0.274 ms this way, 0.320 ms with x
    // innermost (docs/PERFORMANCE.md).
    if (k.split_k > 1) {
        const SplitK split = split_input_channels(a.conv, a.r.z, s, k.split_k);
        const Var partial_thread = tile_conv_output(split.partial_tile, a.x, a.y, a.c, a.n, s, k, {split.u});
        Func partial = split.partial;
        partial.compute_at(split.partial_tile, partial_thread)
            .store_in(MemoryType::Register)
            .unroll(a.x)
            .unroll(a.y)
            .unroll(a.c);
        partial.update()
            .reorder(a.c, a.x, a.y, a.r.x, a.r.y, split.within, a.n, split.u)
            .unroll(a.x)
            .unroll(a.y)
            .unroll(a.c);
        unroll_kernel_window(partial.update(), a, s, k);
        a.conv.update().reorder(a.c, a.x, a.y, split.share, a.n).unroll(a.x).unroll(a.y).unroll(a.c);
        return;
    }
    a.conv.update().reorder(a.c, a.x, a.y, a.r.x, a.r.y, a.r.z, a.n).unroll(a.x).unroll(a.y).unroll(a.c);
    unroll_kernel_window(a.conv.update(), a, s, k);
}

// The staged variant with the tile its knobs resolve to (conv2d_staged_tile.h): the same
// function gave the planner its default knobs, so a resolved choice comes back unchanged.
inline void schedule_conv2d_with_staging(Conv2d &a, const Conv2dShape &s, const Conv2dKnobs &k) {
    StagedConvTile t;
    try {
        t = resolve_staged_tile(s, k);
    } catch (const std::invalid_argument &e) {
        throw Halide::CompileError(std::string("conv2d: ") + e.what());
    }
    if (shared_floats(s, t) > kSharedFloats)
        throw Halide::CompileError("conv2d: the staged tile needs " + std::to_string(shared_floats(s, t) * 4) +
                                   " bytes of shared memory, more than 48 KiB");
    Conv2dKnobs sum_knobs;
    sum_knobs.registers = k.registers;
    const Conv2dKnobs sum_tile = register_tile(s, sum_knobs);
    schedule_conv2d_staged(a, s, t,
                           [&](Halide::Func f) { return tile_conv_output(f, a.x, a.y, a.c, a.n, s, sum_tile, {}); });
}

}  // namespace cortado::schedules::gpu
