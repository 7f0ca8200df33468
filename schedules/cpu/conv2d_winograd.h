// The CPU schedule of the Winograd convolution (generators/conv2d_winograd.h), three passes over
// memory:
// - the input transform, vectorised over tiles along x, all α² positions of a tile in one
//   unrolled body (the row sums Bᵀ d are shared between positions), parallel over channels;
// - the α² products on the CPU GEMM schedule (schedules/cpu/gemm.h), with C stored tile-innermost;
// - the output transform, vectorised over tiles along x with the m×m pixels of a tile unrolled,
//   parallel over channels and images.
#pragma once

#include "generators/conv2d_winograd.h"
#include "schedules/cpu/gemm.h"
#include "schedules/cpu/padded_input.h"

namespace cortado::schedules::cpu {

inline void schedule_conv2d_winograd(Conv2dWinograd &a, const ops::GemmBlocking &blocking,
                                     const Halide::Target &target) {
    using namespace Halide;
    const int lanes = target.natural_vector_size<float>();
    const int m = a.matrices.m;
    Var txo{"txo"}, txi{"txi"}, xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"};

    schedule_padded_input(a.padded, lanes);

    a.transformed.compute_root()
        .reorder(a.pos, a.tx, a.ty, a.image, a.ci)
        .split(a.tx, txo, txi, lanes, TailStrategy::RoundUp)
        .reorder(a.pos, txi, txo)
        .vectorize(txi)
        .unroll(a.pos)
        .parallel(a.ci);

    a.gemm->output.compute_root();
    schedule_gemm(*a.gemm, blocking, target, true);

    a.output.split(a.x, xo, xi, m, TailStrategy::GuardWithIf)
        .split(a.y, yo, yi, m, TailStrategy::GuardWithIf)
        .reorder(xo, xi, yi, yo, a.c, a.n)
        .vectorize(xo, lanes, TailStrategy::GuardWithIf)
        .unroll(xi)
        .unroll(yi)
        .fuse(a.c, a.n, a.c)
        .parallel(a.c);
}

}  // namespace cortado::schedules::cpu
