// GPU schedule for conv2d (CUDA, OpenCL): each thread owns a register tile of `channels` output
// channels x `rows` output rows x `cols` adjacent x positions; a block is `threads_x` x-positions by `threads_c`
// channel groups. The reduction over (kx, ky, ci) runs in registers; inputs and weights come
// through the L1 cache. Layers with few outputs and a long reduction (13x13 or 15x15 maps with
// hundreds of input channels) split the input channels `split_k` ways (rfactor) so enough
// threads run, then add the partial sums. The padded input is materialised by its own kernel.
#pragma once

#include <vector>

#include "generators/conv2d.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

struct Conv2dKnobs {
    int rows = 0;  // 0: chosen from the shape
    int channels = 4, threads_x = 32, threads_c = 8;
    int cols = 1;  // x positions per thread: neighbours share input loads across kx
    int split_k = 0;  // 0: chosen from the shape, aiming for `target_threads` threads
    int target_threads = 65536;
};

// Taller register tiles reuse each weight more, but a tile that overhangs the map recomputes
// rows: take 8 rows when that wastes at most 10% (15, 55, 56 ... rows), else 4.
inline int rows_per_thread(int out_h) {
    auto computed = [&](int rows) { return ((out_h + rows - 1) / rows) * rows; };
    return computed(8) * 10 <= out_h * 11 ? 8 : 4;
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

inline void schedule_conv2d(Conv2d &a, const Conv2dShape &s, const Halide::Target &, Conv2dKnobs k = {}) {
    using namespace Halide;
    const int in_per_group = s.in_channels / s.group;
    // Knobs come from users (target tables, CORTADO_KNOBS): sizes below 1 mean 1.
    k.cols = std::max(1, k.cols), k.channels = std::max(1, k.channels);
    k.threads_x = std::max(1, k.threads_x), k.threads_c = std::max(1, k.threads_c);
    if (k.rows <= 0) k.rows = rows_per_thread(s.out_h);
    if (k.split_k == 0) {
        // Split the reduction until about `target_threads` threads run (default 64k: 132 SMs x
        // 512), keeping at least 16 input channels per share.
        const long threads = long(s.batch) * ((s.out_w + k.cols - 1) / k.cols) * ((s.out_h + k.rows - 1) / k.rows) *
                             ((s.out_channels + k.channels - 1) / k.channels);
        k.split_k = 1;
        while (threads * k.split_k * 2 <= k.target_threads && in_per_group / (k.split_k * 2) >= 16) k.split_k *= 2;
    }
    if (s.pad_h > 0 || s.pad_w > 0) {
        a.padded.compute_root();
        tile_2d(a.padded, a.x, a.y, s.in_w + 2 * s.pad_w, s.in_h + 2 * s.pad_h, a.c, a.n);
    }
    const Var thread = tile_conv_output(a.output, a.x, a.y, a.c, a.n, s, k, {});
    a.conv.compute_at(a.output, thread).store_in(MemoryType::Register).unroll(a.x).unroll(a.y).unroll(a.c);
    if (k.split_k > 1) {
        // partial(x, y, c, n, u): the sum over the u-th share of the input channels.
        RVar rzo{"rzo"}, rzi{"rzi"};
        Var u{"u"};
        Func partial = a.conv.update()
                           .split(a.r.z, rzo, rzi, (in_per_group + k.split_k - 1) / k.split_k,
                                  TailStrategy::GuardWithIf)
                           .rfactor(rzo, u);
        Func partial_tile = partial.in();
        partial_tile.compute_root();
        const Var partial_thread = tile_conv_output(partial_tile, a.x, a.y, a.c, a.n, s, k, {u});
        partial.compute_at(partial_tile, partial_thread).store_in(MemoryType::Register).unroll(a.x).unroll(a.y).unroll(a.c);
        partial.update().reorder(a.x, a.y, a.c, a.r.x, a.r.y, rzi, a.n, u).unroll(a.x).unroll(a.y).unroll(a.c);
        if (s.kernel_w <= 5) partial.update().unroll(a.r.x);
        a.conv.update().unroll(a.x).unroll(a.y).unroll(a.c);
        return;
    }
    a.conv.update().reorder(a.x, a.y, a.c, a.r.x, a.r.y, a.r.z, a.n).unroll(a.x).unroll(a.y).unroll(a.c);
    if (s.kernel_w <= 5) a.conv.update().unroll(a.r.x);
}

}  // namespace cortado::schedules::gpu
