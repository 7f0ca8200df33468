// The transposed convolution (ops/deconv2d.h) as a gather over the kernel taps. Buffers: input
// (x, y, c, n), weights (kx, ky, co within its group, ci), bias (co), output (x, y, co, n).
#pragma once

#include "Halide.h"
#include "ops/deconv2d.h"

namespace cortado {

using ops::Deconv2dShape;

struct Deconv2d {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::RDom r;  // (input channel within the group, ky, kx)
    Halide::Func sum{"deconv2d_sum"};  // the taps summed onto the bias, where each schedule keeps it
    Halide::Func output{"deconv2d"};

    Deconv2d(Halide::Func input, Halide::Func weights, Halide::Func bias, const Deconv2dShape &s) {
        using namespace Halide;
        const int in_per_group = s.in_channels / s.group, out_per_group = s.out_channels / s.group;
        Func padded = BoundaryConditions::constant_exterior(
            input, 0.0f, {{0, s.in_w}, {0, s.in_h}, {0, s.in_channels}, {0, s.batch}});
        r = RDom(0, in_per_group, 0, s.kernel_h, 0, s.kernel_w, "taps");
        // Halide's integer division and modulo round towards -inf, so a tap left of the input
        // lands on a negative index, which the exterior reads as 0.
        const Expr tx = x + s.pad_w - r.z * s.dilation_w, ty = y + s.pad_h - r.y * s.dilation_h;
        const Expr group = c / out_per_group, ci = group * in_per_group + r.x;
        const Expr tap = padded(tx / s.stride_w, ty / s.stride_h, ci, n) * weights(r.z, r.y, c - group * out_per_group, ci);
        Expr exact = Internal::const_true();
        if (s.stride_w > 1) exact = exact && tx % s.stride_w == 0;
        if (s.stride_h > 1) exact = exact && ty % s.stride_h == 0;
        sum(x, y, c, n) = bias(c);
        sum(x, y, c, n) += select(exact, tap, 0.0f);
        output(x, y, c, n) = sum(x, y, c, n);
    }
};

}  // namespace cortado
