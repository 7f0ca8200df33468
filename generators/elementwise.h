// The element-wise ops over flat views: ReLU (with negative slope), Eltwise (SUM with
// coefficients, PROD, MAX) and the per-channel affine map that BatchNorm and Scale become once
// their blobs are folded into a scale and a shift at create time.
#pragma once

#include <vector>

#include "Halide.h"

namespace cortado {

// NaN passes through (Caffe's max(x, 0) keeps it too) and -inf maps to 0, not to
// -inf * 0 = NaN. The explicit is_nan test matters: Halide turns select(v < 0, 0, v) into a
// hardware max, which drops a NaN operand.
inline Halide::Expr leaky_relu(Halide::Expr v, float slope) {
    if (slope == 0.0f) return Halide::select(Halide::is_nan(v), v, Halide::max(v, 0.0f));
    return Halide::select(v < 0.0f, v * slope, v);
}

// max(a, b) that is NaN when either is: a hardware max silently drops a NaN operand.
inline Halide::Expr max_keeping_nan(Halide::Expr a, Halide::Expr b) {
    return Halide::select(a > b || Halide::is_nan(a), a, b);
}

struct Relu {
    Halide::Var i{"i"};
    Halide::Func output{"relu"};
    Relu(Halide::Func input, float slope) { output(i) = leaky_relu(input(i), slope); }
};

enum class EltwiseOp { Sum = 0, Product = 1, Max = 2 };

struct Eltwise {
    Halide::Var i{"i"};
    Halide::Func output{"eltwise"};
    Eltwise(const std::vector<Halide::Func> &inputs, EltwiseOp op, const std::vector<float> &coeff) {
        Halide::Expr acc;
        for (size_t k = 0; k < inputs.size(); k++) {
            Halide::Expr v = inputs[k](i);
            if (op == EltwiseOp::Sum && coeff[k] != 1.0f) v = v * coeff[k];
            if (k == 0) acc = v;
            else if (op == EltwiseOp::Sum) acc = acc + v;
            else if (op == EltwiseOp::Product) acc = acc * v;
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
