// Local response normalisation, Caffe semantics.
// ACROSS_CHANNELS: out = x * (k + alpha/n * sum of x^2 over n neighbouring channels)^-beta.
// WITHIN_CHANNEL: Caffe builds it from AVE pooling of x^2 (n x n, pad (n-1)/2, whose divisor
// is always n*n at stride 1) and a power layer with shift 1, so k plays no part:
// out = x * (1 + alpha/(n*n) * sum of x^2 over the n x n window)^-beta.
#pragma once

#include <cmath>
#include <limits>

#include "Halide.h"
#include "ops/lrn.h"

namespace cortado {

using ops::LRNShape;

struct LRN {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::Func square{"square"}, window_sum{"window_sum"}, output{"lrn"};

    LRN(Halide::Func input, const LRNShape &s) {
        using namespace Halide;
        Func zero_outside =
            BoundaryConditions::constant_exterior(input, 0.0f, {{0, s.w}, {0, s.h}, {0, s.channels}, {0, s.batch}});
        square(x, y, c, n) = zero_outside(x, y, c, n) * zero_outside(x, y, c, n);
        const int half = (s.local_size - 1) / 2;
        // The sum's adds are strict: the test below for a non-finite sum must survive schedules
        // that keep the sum in registers, where LLVM would otherwise read fast math's flags as a
        // promise that the sum is finite and drop the test.
        window_sum(x, y, c, n) = 0.0f;
        if (s.across_channels) {
            RDom r(-half, s.local_size, "r");
            window_sum(x, y, c, n) = strict_float(window_sum(x, y, c, n) + square(x, y, c + r, n));
        } else {
            RDom r(-half, s.local_size, -half, s.local_size, "r");
            window_sum(x, y, c, n) = strict_float(window_sum(x, y, c, n) + square(x + r.x, y + r.y, c, n));
        }
        const float shift = s.across_channels ? s.k : 1.0f;
        const float factor = s.alpha / (s.across_channels ? s.local_size : s.local_size * s.local_size);
        Expr total = window_sum(x, y, c, n), value = input(x, y, c, n);
        // The window sum is NaN or +inf when a value in the window is (or when squares overflow).
        // The fast pow is right for finite operands only, so a non-finite sum takes IEEE's value,
        // worked out here in C++ for this layer's constants, times x strictly (inf * 0 is NaN).
        const float power_at_nan = std::pow(shift + factor * std::numeric_limits<float>::quiet_NaN(), -s.beta);
        const float power_at_infinity = std::pow(shift + factor * std::numeric_limits<float>::infinity(), -s.beta);
        Expr power_of_non_finite = select(is_nan(total), power_at_nan, power_at_infinity);
        // Caffe's networks use beta 0.75 (AlexNet, CaffeNet, GoogLeNet): base^-0.75 is
        // 1 / (sqrt(base) * sqrt(sqrt(base))), within two roundings of pow, with two hardware square
        // roots in place of pow's exp(log()) polynomials; a zero or negative base gives pow's inf or
        // NaN as well.
        Expr base = shift + factor * total;
        Expr power = s.beta == 0.75f ? 1.0f / (sqrt(base) * sqrt(sqrt(base))) : pow(base, -s.beta);
        output(x, y, c, n) = select(is_finite(total), value * power, strict_float(value * power_of_non_finite));
    }
};

}  // namespace cortado
