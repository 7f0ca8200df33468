// The element-wise ops over flat views: ReLU (with negative slope), the other activations, Eltwise (SUM with
// coefficients, PROD, MAX, QUOTIENT) and the per-channel affine map that BatchNorm and Scale become once
// their blobs are folded into a scale and a shift at create time.
#pragma once

#include <cmath>
#include <vector>

#include "Halide.h"
#include "generators/non_finite.h"
#include "ops/elementwise.h"

namespace cortado {

// NaN passes through (Caffe's max(x, 0) keeps it too) and -inf maps to 0 without a slope, not to
// -inf * 0 = NaN. Without the is_nan test, select(v < 0, v * slope, v) may become a hardware
// max, which drops a NaN operand.
inline Halide::Expr leaky_relu(Halide::Expr v, float slope) {
    using Halide::select;
    if (slope == 0.0f) return select(Halide::is_nan(v), v, Halide::max(v, 0.0f));
    return select(Halide::is_nan(v), v, select(v < 0.0f, v * slope, v));
}

// ReLU, the activations and Eltwise as their schedules see them: one output element per input
// element of flat views.
struct FlatOutput {
    Halide::Func output;
    Halide::Var i;
};

struct Relu {
    Halide::Var i{"i"};
    Halide::Func output{"relu"};
    Relu(Halide::Func input, float slope) { output(i) = leaky_relu(input(i), slope); }
};

using ops::ActivationFunction;

// NaN stays NaN and infinities go to the limits. Halide's CPU exp returns 0 for NaN and for
// +inf, so sigmoid clamps its argument (e^88 is near float's largest; sigmoid(-88) is 6e-39, as
// good as 0) and tests for NaN; clip tests for NaN because a hardware min or max may drop it.
inline Halide::Expr activation(Halide::Expr v, ActivationFunction function, float lo, float hi) {
    using namespace Halide;
    switch (function) {
    case ActivationFunction::Sigmoid: return select(is_nan(v), v, 1.0f / (1.0f + exp(-clamp(v, -88.0f, 88.0f))));
    case ActivationFunction::Tanh: return tanh(v);
    case ActivationFunction::Clip: break;
    }
    Expr clipped = v;
    if (std::isfinite(lo)) clipped = max(clipped, lo);
    if (std::isfinite(hi)) clipped = min(clipped, hi);
    return select(is_nan(v), v, clipped);
}

struct Activation {
    Halide::Var i{"i"};
    Halide::Func output{"activation"};
    Activation(Halide::Func input, ActivationFunction function, float lo, float hi) {
        output(i) = activation(input(i), function, lo, hi);
    }
};

using ops::EltwiseOperation;

struct Eltwise {
    Halide::Var i{"i"};
    Halide::Func output{"eltwise"};
    Eltwise(const std::vector<Halide::Func> &inputs, EltwiseOperation op, const std::vector<float> &coeff) {
        Halide::Expr acc;
        for (size_t k = 0; k < inputs.size(); k++) {
            Halide::Expr v = inputs[k](i);
            if (op == EltwiseOperation::Sum && coeff[k] != 1.0f) v = times_constant(v, coeff[k]);
            if (k == 0) acc = v;
            else if (op == EltwiseOperation::Sum) acc = acc + v;
            else if (op == EltwiseOperation::Product) acc = acc * v;
            else if (op == EltwiseOperation::Quotient) acc = acc / v;
            else acc = max_keeping_nan(acc, v);
        }
        output(i) = acc;
    }
};

struct ChannelAffine {
    Halide::Var x{"x"}, c{"c"}, o{"o"};
    Halide::Func output{"channel_affine"};
    ChannelAffine(Halide::Func input, Halide::Func scale, Halide::Func shift) {
        output(x, c, o) = input(x, c, o) * scale(c) + shift(c);
    }
};

}  // namespace cortado
