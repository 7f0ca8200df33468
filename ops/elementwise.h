// Descriptors of the element-wise ops (Halide-free): ReLU, the other activations (sigmoid, tanh,
// clip), Eltwise, and the per-channel affine map that BatchNorm and Scale become.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ops/activation.h"
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

// x * scale[c] + shift[c]; with `negative_only`, applied to negative x alone (PReLU's per-channel
// slope, its shift zero).
struct ChannelAffineShape {
    static constexpr const char *kOp = "channel_affine";
    int inner = 1, channels = 1, outer = 1;
    bool negative_only = false;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("inner", inner), visit("channels", channels), visit("outer", outer);
        visit("negative_only", negative_only);
    }
};

using ReluOp = Op<ReluShape>;
using ActivationOp = Op<ActivationShape>;
using EltwiseOp = Op<EltwiseShape>;
using ChannelAffineOp = Op<ChannelAffineShape>;

}  // namespace cortado::ops
