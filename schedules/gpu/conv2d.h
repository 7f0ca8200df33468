// GPU schedule for conv2d (CUDA, OpenCL). Two variants:
// - shared-memory staging (conv2d_staged.h): blocks stage input windows and weights chunk by
//   chunk; opt-in through the gpu_stage_channels knob (Conv2dKnobs says why);
// - register tiling (below): each thread owns a register tile of `channels` output channels x
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
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

// Tuning knobs (generator parameters); 0 means "chosen from the shape by the variant".
struct Conv2dKnobs {
    int rows = 0, channels = 0, threads_x = 0, threads_c = 0;
    int cols = 0;     // x positions per thread: neighbours share input loads across kx
    int threads_y = 0;  // row groups per block (staged variant only)
    int split_k = 0;  // aiming for `target_threads` threads
    int target_threads = 65536;
    // Input channels per staged chunk: N > 0 takes the shared-memory variant, 0 (default) the
    // register variant. Staging is opt-in: on the H100 it lost on most of the conv suite (up to
    // 5x on large maps, where the block's shared running sums limit occupancy), and once the
    // register variant ran channels-innermost it lost on Overfeat L6 too, its last win (0.292
    // against 0.274 ms; docs/PERFORMANCE.md, session 4). It stays for devices where shared
    // memory pays, and to be tuned.
    int stage_channels = 0;
    // Registers a thread may use (the target's registers_per_thread; on CUDA the runtime
    // raises the driver's cap to it). Halide 21's CUDA runtime caps every kernel at 64, and a
    // tile that needs more spills: 8 channels x 8 rows ran 1.71 ms on Overfeat L6 under the cap
    // and 0.235 ms under a cap of 112 (docs/PERFORMANCE.md, session 5).
    int registers = 64;
};

// Unrolls the kernel loops of a register reduction: kx when the kernel is at most 5 wide; with
// 128 registers ky too, so that one input row serves every kernel row that reads it (10 rows
// of loads for 8 output rows x 3 kernel rows instead of 24; the body needs about 128 registers).
inline void unroll_kernel_window(Halide::Stage reduction, const Conv2d &a, const Conv2dShape &s, const Conv2dKnobs &k) {
    if (s.kernel_w > 5) return;
    reduction.unroll(a.r.x);
    if (k.registers >= 128 && s.kernel_h > 1 && s.kernel_h <= 5) reduction.unroll(a.r.y);
}

// Taller register tiles reuse each weight more, but a tile that overhangs the map recomputes
// rows: take 8 rows when that wastes at most 10% (15, 55, 56 ... rows), else 4.
inline int rows_per_thread(int out_h) {
    auto computed = [&](int rows) { return ((out_h + rows - 1) / rows) * rows; };
    return computed(8) * 10 <= out_h * 11 ? 8 : 4;
}

// Threads a register tile of cols x rows x channels gives, one per tile.
inline long tile_threads(const Conv2dShape &s, int cols, int rows, int channels) {
    return long(s.batch) * ((s.out_w + cols - 1) / cols) * ((s.out_h + rows - 1) / rows) *
           ((s.out_channels + channels - 1) / channels);
}

// Split the reduction until about `target_threads` threads run (default 64k: 132 SMs x 512),
// keeping at least 16 input channels per share.
inline int split_for(const Conv2dShape &s, long threads, int target_threads) {
    const int in_per_group = s.in_channels / s.group;
    int split = 1;
    while (threads * split * 2 <= target_threads && in_per_group / (split * 2) >= 16) split *= 2;
    return split;
}

// Tiles `f` (x, y, c, n[, u]) into register tiles per thread and returns the thread's x var.
inline Halide::Var tile_conv_output(Halide::Func f, Halide::Var x, Halide::Var y, Halide::Var c,
                             Halide::Var n, const Conv2dShape &s, const Conv2dKnobs &k,
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

// The register tile's sizes, each knob left at 0 filled in from the shape.
inline Conv2dKnobs register_tile(const Conv2dShape &s, Conv2dKnobs k) {
    // 8 output channels per thread (64 accumulators) need about 96 registers; given them,
    // spatial kernels take the larger tile, with 2 channel groups per block (8 with 4
    // channels). On the H100's quick conv suite it won on 3x3 and 5x5 layers (Overfeat L6
    // 0.276 -> 0.217 ms) and lost up to 10% on 1x1 layers at batch 20, which keep 4 channels
    // (docs/PERFORMANCE.md, session 5).
    if (k.cols <= 0) k.cols = 1;
    if (k.rows <= 0) k.rows = rows_per_thread(s.out_h);
    bool wide = k.registers >= 96 && s.kernel_h * s.kernel_w > 1 && s.out_channels >= 16;
    // The larger tile halves the threads; layers whose reduction cannot be split far enough to
    // make up for it keep the smaller one: LeNet's convolutions at batch 5 and 20 (at most 4320
    // threads with 8 channels) ran twice as long with it.
    if (wide && k.channels <= 0 && k.split_k <= 0) {
        const long threads = tile_threads(s, k.cols, k.rows, 8);
        wide = threads * split_for(s, threads, k.target_threads) >= k.target_threads / 8;
    }
    if (k.channels <= 0) k.channels = wide ? 8 : 4;
    if (k.threads_x <= 0) k.threads_x = 32;
    if (k.threads_c <= 0) k.threads_c = k.channels >= 8 ? 2 : 8;
    return k;
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
    // innermost (docs/PERFORMANCE.md, session 4).
    if (k.split_k > 1) {
        const SplitK split = split_input_channels(a, s, k.split_k);
        const Var partial_thread = tile_conv_output(split.partial_tile, a.x, a.y, a.c, a.n, s, k, {split.u});
        Func partial = split.partial;
        partial.compute_at(split.partial_tile, partial_thread).store_in(MemoryType::Register).unroll(a.x).unroll(a.y).unroll(a.c);
        partial.update().reorder(a.c, a.x, a.y, a.r.x, a.r.y, split.within, a.n, split.u).unroll(a.x).unroll(a.y).unroll(a.c);
        unroll_kernel_window(partial.update(), a, s, k);
        a.conv.update().reorder(a.c, a.x, a.y, split.share, a.n).unroll(a.x).unroll(a.y).unroll(a.c);
        return;
    }
    a.conv.update().reorder(a.c, a.x, a.y, a.r.x, a.r.y, a.r.z, a.n).unroll(a.x).unroll(a.y).unroll(a.c);
    unroll_kernel_window(a.conv.update(), a, s, k);
}

// The staged variant with the shape's tile, each knob the user set (> 0) taking precedence.
inline void schedule_conv2d_with_staging(Conv2d &a, const Conv2dShape &s, const Conv2dKnobs &k) {
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
        throw Halide::CompileError("conv2d: gpu_split_k (" + std::to_string(t.split_k) + ") must divide the " +
                                   std::to_string(s.in_channels) + " input channels");
    // A chunk must divide the share exactly; the largest such chunk up to the knob.
    if (k.stage_channels > 0) t.stage_channels = k.stage_channels;
    t.stage_channels = largest_divisor_up_to(s.in_channels / t.split_k, t.stage_channels);
    // Whole block tiles inside the map and the output channels (ShiftInwards).
    while (t.block_w() > s.out_w) t.threads_x > 1 ? t.threads_x-- : t.cols--;
    while (t.block_h() > s.out_h) t.threads_y > 1 ? t.threads_y-- : t.rows--;
    while (t.block_c() > s.out_channels) t.threads_c > 1 ? t.threads_c-- : t.channels--;
    // Chunks are "up to" the knob: large strided kernels have wide windows (AlexNet-style 11x11
    // stride 4 on 224x224: 59580 bytes with 3-channel chunks), so take smaller chunks until the
    // tile fits, and fail only when one channel per chunk does not.
    while (shared_floats(s, t) > kSharedFloats && t.stage_channels > 1)
        t.stage_channels = largest_divisor_up_to(s.in_channels / t.split_k, t.stage_channels - 1);
    if (shared_floats(s, t) > kSharedFloats)
        throw Halide::CompileError("conv2d: the staged tile needs " + std::to_string(shared_floats(s, t) * 4) +
                                   " bytes of shared memory, more than 48 KiB; lower the gpu_ knobs");
    Conv2dKnobs sum_knobs;
    sum_knobs.registers = k.registers;
    const Conv2dKnobs sum_tile = register_tile(s, sum_knobs);
    schedule_conv2d_staged(a, s, t, [&](Halide::Func f) { return tile_conv_output(f, a.x, a.y, a.c, a.n, s, sum_tile, {}); });
}

inline void schedule_conv2d(Conv2d &a, const Conv2dShape &s, const Halide::Target &, Conv2dKnobs k = {}) {
    // Knobs come from users (target tables, CORTADO_KNOBS): a size below 1 means "by shape".
    // Grouped layers never stage: bounds inference cannot tell that a block's output channels
    // share one group, so the staged window would span the next group and read past the input.
    const bool staged = s.group == 1 && k.stage_channels > 0;
    if (staged) {
        schedule_conv2d_with_staging(a, s, k);
    } else {
        schedule_conv2d_registers(a, s, k);
    }
}

}  // namespace cortado::schedules::gpu
