// Descriptors of the element-wise ops (Halide-free): ReLU, Eltwise, and the per-channel affine
// map that BatchNorm and Scale become.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "generators/ops/op.h"

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

enum class EltwiseOperation { Sum, Product, Max };

inline std::string field_value(EltwiseOperation op) {
    return op == EltwiseOperation::Sum ? "sum" : op == EltwiseOperation::Product ? "product" : "max";
}
inline void parse_field(const std::string &text, EltwiseOperation &op) {
    if (text == "sum") op = EltwiseOperation::Sum;
    else if (text == "product") op = EltwiseOperation::Product;
    else if (text == "max") op = EltwiseOperation::Max;
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
using EltwiseOp = Op<EltwiseShape>;
using ChannelAffineOp = Op<ChannelAffineShape>;

}  // namespace cortado::ops
