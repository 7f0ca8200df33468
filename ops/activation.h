// The activations that map each element alone (Halide-free): the functions, their parameters,
// and the activation op's shape. The Epilogue (choice.h) carries one too, fused from the layer
// after a product or element-wise op.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ops/field_text.h"

namespace cortado::ops {

// The activations that map each element alone. The parameters, per function:
//   Clip: min, max (an infinite bound is an open side);
//   HardSigmoid: max(0, min(1, alpha x + beta)); HardSwish: x * HardSigmoid(x) (ONNX's: alpha 1/6, beta 1/2);
//   Silu: x * Sigmoid(x) (fusion makes it, and a HardSwish, from x times its gate: frontend/fusion.h);
//   Elu: x > 0 ? x : alpha (e^x - 1); Selu: gamma * Elu(alpha);
//   Exp: e^(alpha x + beta); Log: gamma ln(alpha x + beta); Power: (alpha x + beta)^gamma
//   (Caffe's Exp, Log and Power layers in these terms; ONNX's Neg, Sqrt and Reciprocal are Powers);
//   Softplus: ln(1 + e^x) (Caffe's BNLL); Gelu: x/2 (1 + erf(x/sqrt 2)); GeluTanh: its tanh form;
//   Quantize: what a quantized tensor holds, dequantized: (clamp(round(x (1 / alpha)) + beta, min,
//   max) - beta) alpha, the reciprocal and the product in float, rounding ties to even, with alpha
//   the scale, beta the zero point and min..max the integer type's range (ONNX's QuantizeLinear
//   then DequantizeLinear). NaN stays NaN.
enum class ActivationFunction {
    Sigmoid,
    Tanh,
    Clip,
    HardSigmoid,
    HardSwish,
    Elu,
    Selu,
    Softplus,
    Exp,
    Log,
    Power,
    Abs,
    Erf,
    Gelu,
    GeluTanh,
    Silu,
    Quantize
};

inline const std::vector<std::pair<ActivationFunction, const char *>> &activation_function_names() {
    static const std::vector<std::pair<ActivationFunction, const char *>> names = {
        {ActivationFunction::Sigmoid, "sigmoid"},
        {ActivationFunction::Tanh, "tanh"},
        {ActivationFunction::Clip, "clip"},
        {ActivationFunction::HardSigmoid, "hard_sigmoid"},
        {ActivationFunction::HardSwish, "hard_swish"},
        {ActivationFunction::Elu, "elu"},
        {ActivationFunction::Selu, "selu"},
        {ActivationFunction::Softplus, "softplus"},
        {ActivationFunction::Exp, "exp"},
        {ActivationFunction::Log, "log"},
        {ActivationFunction::Power, "power"},
        {ActivationFunction::Abs, "abs"},
        {ActivationFunction::Erf, "erf"},
        {ActivationFunction::Gelu, "gelu"},
        {ActivationFunction::GeluTanh, "gelu_tanh"},
        {ActivationFunction::Silu, "silu"},
        {ActivationFunction::Quantize, "quantize"}};
    return names;
}

inline std::string field_value(ActivationFunction f) {
    for (const auto &[function, name] : activation_function_names())
        if (function == f) return name;
    throw std::invalid_argument("activation function without a name");
}
inline void parse_field(const std::string &text, ActivationFunction &f) {
    for (const auto &[function, name] : activation_function_names())
        if (text == name) {
            f = function;
            return;
        }
    throw std::invalid_argument("unknown activation function '" + text + "'");
}

// The parameters a function reads (the list above); the others stay at their defaults, so that
// equal activations share one kernel.
struct ActivationShape {
    static constexpr const char *kOp = "activation";
    int count = 1;
    ActivationFunction function = ActivationFunction::Sigmoid;
    float min = 0.0f, max = 0.0f;
    float alpha = 1.0f, beta = 0.0f, gamma = 1.0f;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("count", count), visit("function", function), visit("min", min), visit("max", max);
        visit("alpha", alpha), visit("beta", beta), visit("gamma", gamma);
    }
};

}  // namespace cortado::ops
