// The GPU schedule of the Winograd convolution (generators/conv2d_winograd.h), CUDA and OpenCL
// alike, three kernels and no shared memory:
// - the input transform: a thread per tile and input channel computes all α² positions from one
//   α×α patch (the row sums Bᵀ d are shared between positions); adjacent threads take adjacent
//   tiles, so every position's stores are one contiguous run per warp;
// - the α² products on the GPU GEMM schedule (schedules/gpu/gemm.h), the positions a block
//   dimension, C stored tile-innermost: a thread's `rows` tiles are one contiguous store;
// - the output transform: a thread per tile and output channel computes its m×m pixels from
//   the α² products, adjacent threads reading adjacent tiles.
#pragma once

#include "generators/conv2d_winograd.h"
#include "schedules/gpu/fitting.h"
#include "schedules/gpu/gemm.h"

namespace cortado::schedules::gpu {

// Threads of a block in the transforms: enough to hide the loads, few enough that a small map
// still gives every SM a block.
inline constexpr int kWinogradTransformThreads = 64;

inline void schedule_conv2d_winograd(Conv2dWinograd &a, const GemmGpuTile &tile) {
    using namespace Halide;
    const int m = a.matrices.m;

    Var t{"t"}, to{"to"}, ti{"ti"};
    a.transformed.compute_root()
        .reorder(a.pos, a.tx, a.ty, a.image, a.ci)
        .fuse(a.tx, a.ty, t)
        .fuse(t, a.image, t)
        .split(t, to, ti, fitting(kWinogradTransformThreads, a.tiles.count), TailStrategy::GuardWithIf)
        .reorder(a.pos, ti, to, a.ci)
        .unroll(a.pos)
        .gpu_blocks(to, a.ci)
        .gpu_threads(ti);

    a.gemm->output.compute_root();
    schedule_gemm(*a.gemm, tile, true);

    Var xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"}, cn{"cn"};
    a.output.split(a.x, xo, xi, m, TailStrategy::GuardWithIf)
        .split(a.y, yo, yi, m, TailStrategy::GuardWithIf)
        .reorder(xi, yi, xo, yo, a.c, a.n)
        .fuse(xo, yo, t)
        .split(t, to, ti, fitting(kWinogradTransformThreads, a.tiles.x * a.tiles.y), TailStrategy::GuardWithIf)
        .fuse(a.c, a.n, cn)
        .unroll(xi)
        .unroll(yi)
        .gpu_blocks(cn, to)  // channels × images may pass the grid's 65535 in y
        .gpu_threads(ti);
}

}  // namespace cortado::schedules::gpu
