// Local response normalisation, Caffe semantics.
// ACROSS_CHANNELS: out = x * (k + alpha/n * sum of x^2 over n neighbouring channels)^-beta.
// WITHIN_CHANNEL: Caffe builds it from AVE pooling of x^2 (n x n, pad (n-1)/2, whose divisor
// is always n*n at stride 1) and a power layer with shift 1, so k plays no part:
// out = x * (1 + alpha/(n*n) * sum of x^2 over the n x n window)^-beta.
#pragma once

#include "Halide.h"
#include "generators/non_finite.h"

namespace cortado {

struct LRNShape {
    int batch, channels, h, w;
    int local_size;
    float alpha, beta, k;
    bool across_channels;
};

struct LRN {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::Func square{"square"}, window_sum{"window_sum"}, output{"lrn"};

    LRN(Halide::Func input, const LRNShape &s) {
        using namespace Halide;
        Func zero_outside = BoundaryConditions::constant_exterior(
            input, 0.0f, {{0, s.w}, {0, s.h}, {0, s.channels}, {0, s.batch}});
        square(x, y, c, n) = zero_outside(x, y, c, n) * zero_outside(x, y, c, n);
        const int half = (s.local_size - 1) / 2;
        Expr scale;
        if (s.across_channels) {
            RDom r(-half, s.local_size, "r");
            window_sum(x, y, c, n) = sum(square(x, y, c + r, n));
            scale = s.k + (s.alpha / s.local_size) * window_sum(x, y, c, n);
        } else {
            RDom r(-half, s.local_size, -half, s.local_size, "r");
            window_sum(x, y, c, n) = sum(square(x + r.x, y + r.y, c, n));
            scale = 1.0f + (s.alpha / (s.local_size * s.local_size)) * window_sum(x, y, c, n);
        }
        // The window sum (so the scale) is NaN or +inf exactly when a value in the window is.
        // The fast pow is right for finite operands only: a non-finite sum takes IEEE's
        // pow(NaN, -beta) = NaN or pow(+inf, -beta), times x strictly (inf * 0 is NaN).
        Expr total = window_sum(x, y, c, n), value = input(x, y, c, n);
        Expr power_of_non_finite = select(is_nan(total), total, power_of_infinity(-s.beta));
        output(x, y, c, n) = select(is_finite(total), value * pow(scale, -s.beta),
                                    strict_float(value * power_of_non_finite));
    }
};

}  // namespace cortado
