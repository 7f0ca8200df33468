// Descriptors of the element-wise ops (Halide-free): ReLU, the other activations (sigmoid, tanh,
// clip), Eltwise, and the per-channel affine map that BatchNorm and Scale become.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "ops/op.h"

namespace cortado::ops {

struct ReluShape {
    static constexpr const char *kOp = "relu";
    int count = 1;
    float slope = 0.0f;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("count", count), visit("slope", slope);
    }
};

enum class ActivationFunction { Sigmoid, Tanh, Clip };

inline std::string field_value(ActivationFunction f) {
    return f == ActivationFunction::Sigmoid ? "sigmoid" : f == ActivationFunction::Tanh ? "tanh" : "clip";
}
inline void parse_field(const std::string &text, ActivationFunction &f) {
    if (text == "sigmoid") f = ActivationFunction::Sigmoid;
    else if (text == "tanh") f = ActivationFunction::Tanh;
    else if (text == "clip") f = ActivationFunction::Clip;
    else throw std::invalid_argument("unknown activation function '" + text + "'");
}

// Clip's bounds may be infinite (an open side); the other functions ignore them.
struct ActivationShape {
    static constexpr const char *kOp = "activation";
    int count = 1;
    ActivationFunction function = ActivationFunction::Sigmoid;
    float min = 0.0f, max = 0.0f;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("count", count), visit("function", function), visit("min", min), visit("max", max);
    }
};

// Quotient divides the first input by the others (ONNX's Div; Caffe's Eltwise has no such mode).
enum class EltwiseOperation { Sum, Product, Max, Quotient };

inline std::string field_value(EltwiseOperation op) {
    switch (op) {
    case EltwiseOperation::Sum: return "sum";
    case EltwiseOperation::Product: return "product";
    case EltwiseOperation::Max: return "max";
    case EltwiseOperation::Quotient: break;
    }
    return "quotient";
}
inline void parse_field(const std::string &text, EltwiseOperation &op) {
    if (text == "sum") op = EltwiseOperation::Sum;
    else if (text == "product") op = EltwiseOperation::Product;
    else if (text == "max") op = EltwiseOperation::Max;
    else if (text == "quotient") op = EltwiseOperation::Quotient;
    else throw std::invalid_argument("unknown eltwise operation '" + text + "'");
}

struct EltwiseShape {
    static constexpr const char *kOp = "eltwise";
    int count = 1;
    EltwiseOperation operation = EltwiseOperation::Sum;
    std::vector<float> coefficients;  // one per input: SUM's coefficients, 1 for the others

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("count", count), visit("operation", operation), visit("coeff", coefficients);
    }
    int inputs() const { return static_cast<int>(coefficients.size()); }
};

struct ChannelAffineShape {
    static constexpr const char *kOp = "channel_affine";
    int inner = 1, channels = 1, outer = 1;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("inner", inner), visit("channels", channels), visit("outer", outer);
    }
};

using ReluOp = Op<ReluShape>;
using ActivationOp = Op<ActivationShape>;
using EltwiseOp = Op<EltwiseShape>;
using ChannelAffineOp = Op<ChannelAffineShape>;

}  // namespace cortado::ops
