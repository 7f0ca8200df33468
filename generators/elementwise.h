// The element-wise ops over flat views: ReLU (with negative slope), the other activations, Eltwise (SUM with
// coefficients, PROD, MAX, QUOTIENT) and the per-channel affine map that BatchNorm and Scale become once
// their blobs are folded into a scale and a shift at create time.
#pragma once

#include <cmath>
#include <vector>

#include "Halide.h"
#include "generators/channel_blocks.h"
#include "generators/non_finite.h"
#include "ops/conv2d_int8.h"
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

// e^x with IEEE's results where Halide's CPU exp has none: NaN for NaN, +inf above float's
// range (Halide's exp returns 0 for NaN and +inf) and 0 below it.
inline Halide::Expr exp_ieee(Halide::Expr x) {
    using namespace Halide;
    const Expr inf = Expr(std::numeric_limits<float>::infinity());
    return select(is_nan(x), x, x > 88.7228f, inf, x < -103.98f, 0.0f, exp(x));
}

// e^-x for x clamped to [-88, 88] (the logistic gate of sigmoid and SiLU): -x = k ln 2 + r with
// k whole and |r| <= ln 2 / 2, e^r by its Taylor series to r^6 (relative error 2.5e-7 in float),
// 2^k from its bits (k = -127 gives 0, as e^-88 is below float's normal range). Halide's exp
// reduces to [0, ln 2), which takes a degree-7 polynomial, and selects for the range; this one is
// what SiLU and sigmoid epilogues cost per element.
inline Halide::Expr exp_of_negated_clamped(Halide::Expr v) {
    using namespace Halide;
    const Expr x = -clamp(v, -88.0f, 88.0f);
    const Expr k = round(x * float(M_LOG2E));
    // ln 2 in two parts, the first with few enough bits that k times it is exact for |k| <= 127.
    const Expr r = (x - k * 0.693145751953125f) - k * 1.428606765330187e-6f;
    Expr p = 1.0f / 720.0f;
    for (float c : {1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f}) p = p * r + c;
    return p * reinterpret(Float(32), (cast<int>(k) + 127) << 23);
}

// ln x with IEEE's results: NaN below 0, -inf at 0, +inf at +inf (Halide's log is a polynomial
// that is right only for finite positive x).
inline Halide::Expr log_ieee(Halide::Expr x) {
    using namespace Halide;
    const float inf = std::numeric_limits<float>::infinity();
    return select(is_nan(x) || x < 0.0f, Expr(std::numeric_limits<float>::quiet_NaN()), x == 0.0f, Expr(-inf),
                  is_inf(x), x, log(x));
}

// x^gamma for a constant gamma as C's pow gives it: exact forms for the common powers; otherwise
// e^(gamma ln |x|), signed for an odd whole gamma and NaN for a negative finite x and a
// fractional one.
inline Halide::Expr power_ieee(Halide::Expr x, float gamma) {
    using namespace Halide;
    if (gamma == 1.0f) return x;
    if (gamma == 2.0f) return x * x;
    if (gamma == 0.5f) return sqrt(x);
    if (gamma == -1.0f) return 1.0f / x;
    if (gamma == 0.0f) return Expr(1.0f);
    const Expr magnitude = exp_ieee(times_constant(log_ieee(abs(x)), gamma));
    const bool whole = std::floor(gamma) == gamma, odd = whole && std::fmod(std::fabs(gamma), 2.0f) == 1.0f;
    // C's pow(-inf, gamma) is +inf or +0 for a fractional gamma, as for +inf.
    if (!whole) return select(x < 0.0f && !is_inf(x), Expr(std::numeric_limits<float>::quiet_NaN()), magnitude);
    return select(is_nan(x), x, odd && x < 0.0f, -magnitude, magnitude);
}

inline Halide::Expr hard_sigmoid(Halide::Expr v, float alpha, float beta) {
    using namespace Halide;
    const Expr a = times_constant(v, alpha) + beta;
    return select(is_nan(a), a, clamp(a, 0.0f, 1.0f));
}

inline Halide::Expr elu(Halide::Expr v, float alpha) {
    using namespace Halide;
    return select(is_nan(v), v, v > 0.0f, v, alpha * (exp_ieee(v) - 1.0f));
}

// erf, which Halide evaluates for finite x only: the input is clamped where erf is ±1 in float.
inline Halide::Expr erf_ieee(Halide::Expr v) {
    using namespace Halide;
    return select(is_nan(v), v, erf(clamp(v, -10.0f, 10.0f)));
}

// The activations of ops::ActivationFunction (see there for the parameters). Each states its
// result for NaN and infinite inputs as the reference does (non_finite.h says why).
inline Halide::Expr activation(Halide::Expr v, const ops::ActivationShape &s) {
    using namespace Halide;
    using F = ActivationFunction;
    switch (s.function) {
    // Sigmoid clamps its argument (e^88 is near float's largest; sigmoid(-88) is 6e-39, as good as 0).
    case F::Sigmoid: return select(is_nan(v), v, 1.0f / (1.0f + exp_of_negated_clamped(v)));
    case F::Tanh: return tanh(v);
    case F::Clip: {
        // A hardware min or max may drop a NaN.
        Expr clipped = v;
        if (std::isfinite(s.min)) clipped = max(clipped, s.min);
        if (std::isfinite(s.max)) clipped = min(clipped, s.max);
        return select(is_nan(v), v, clipped);
    }
    case F::HardSigmoid: return hard_sigmoid(v, s.alpha, s.beta);
    case F::HardSwish: return strict_float(v * hard_sigmoid(v, s.alpha, s.beta));
    case F::Elu: return elu(v, s.alpha);
    case F::Selu: return s.gamma * elu(v, s.alpha);
    // ln(1 + e^x) as max(x, 0) + ln(1 + e^-|x|); below -15, where 1 + e^x rounds to 1, e^x itself.
    case F::Softplus:
        return select(is_nan(v), v, v < -15.0f, exp_ieee(v), max(v, 0.0f) + log(1.0f + exp_ieee(-abs(v))));
    case F::Exp: return exp_ieee(times_constant(v, s.alpha) + s.beta);
    case F::Log: return times_constant(log_ieee(times_constant(v, s.alpha) + s.beta), s.gamma);
    case F::Power: return power_ieee(times_constant(v, s.alpha) + s.beta, s.gamma);
    case F::Abs: return abs(v);
    case F::Erf: return erf_ieee(v);
    case F::Gelu: return strict_float(0.5f * v * (1.0f + erf_ieee(v * float(M_SQRT1_2))));
    case F::GeluTanh: {
        // tanh is ±1 in float beyond ±10; some OpenCL tanh stops short of it, which would turn
        // the -inf * 0 = NaN of -inf into -inf.
        const Expr inner = float(std::sqrt(2.0 / M_PI)) * (v + 0.044715f * v * v * v);
        const Expr t = select(inner < -10.0f, -1.0f, inner > 10.0f, 1.0f, tanh(inner));
        return strict_float(0.5f * v * (1.0f + t));
    }
    // x / (1 + e^-x), one division; below -88 it divides by +inf, so that -inf gives -inf / inf =
    // NaN as the reference's -inf * 0 does, and +inf gives +inf / 1.
    case F::Silu: {
        const Expr denominator = 1.0f + exp_of_negated_clamped(v);
        return v / select(v < -88.0f, Expr(std::numeric_limits<float>::infinity()), denominator);
    }
    // By the reciprocal, as the int8 convolution stages its input (ops/conv2d_int8.h): a
    // convolution that quantizes this tensor again by the same scale finds the same integers.
    case F::Quantize: {
        const Expr level = clamp(round(times_constant(v, ops::int8_inverse_scale(s.alpha))) + s.beta, s.min, s.max);
        return select(is_nan(v), v, strict_float((level - s.beta) * s.alpha));
    }
    }
    throw Halide::CompileError("activation: unknown function");
}

// The epilogue's residual sum, ReLU and activation, on a value the op computed (its bias
// included); `residual` is the residual's element at the same output element, needed only when
// the epilogue has a sum.
inline Halide::Expr fused_activations(Halide::Expr v, const ops::Epilogue &e, Halide::Expr residual = Halide::Expr()) {
    if (e.sum) {
        if (!residual.defined()) throw Halide::CompileError("this kernel cannot add a residual in its epilogue");
        v = v + residual;
    }
    if (e.relu) v = leaky_relu(v, e.relu_slope);
    if (e.activation) v = activation(v, e.activation_shape);
    return v;
}

// `residual` at an output element, read in the output's own coordinates (the kernel's residual
// input is shaped and laid out as its output); undefined when the kernel has no residual.
inline Halide::Expr residual_at(const Halide::Func &residual, const std::vector<Halide::Expr> &at) {
    return residual.defined() ? residual(at) : Halide::Expr();
}

struct Activation {
    Halide::Var i{"i"};
    Halide::Func output{"activation"};
    Activation(Halide::Func input, const ops::ActivationShape &shape) { output(i) = activation(input(i), shape); }
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

// A per-channel affine map over (inner, channels, outer). A channel-blocked tensor (ops::Layout,
// `block` channels per block) is seen as (block·inner, channels / block, outer): a block's
// lanes are channels c·block + x % block. A blocked output reads a blocked input.
struct ChannelAffine {
    Halide::Var x{"x"}, c{"c"}, o{"o"};
    Halide::Func output{"channel_affine"};
    int input_block, output_block;
    ChannelAffine(Halide::Func input, Halide::Func scale, Halide::Func shift, bool negative_only,
                  int input_channel_block = 0, int output_channel_block = 0)
        : input_block(input_channel_block), output_block(output_channel_block) {
        using namespace Halide;
        Expr v, channel = c;
        if (output_block > 0) {
            channel = nchw_channel(x, c, output_block);
            v = input(x, c, o);
        } else {
            v = input_block > 0 ? input(blocked_column(x, c, input_block), channel_block(c, input_block), o)
                                : input(x, c, o);
        }
        const Expr affine = v * scale(channel) + shift(channel);
        output(x, c, o) = negative_only ? select(v < 0.0f, affine, v) : affine;
    }
};

}  // namespace cortado
