// The element-wise ops over flat views: ReLU (with negative slope), Eltwise (SUM with
// coefficients, PROD, MAX) and the per-channel affine map that BatchNorm and Scale become once
// their blobs are folded into a scale and a shift at create time.
#pragma once

#include <vector>

#include "Halide.h"
#include "generators/non_finite.h"

namespace cortado {

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
            if (op == EltwiseOp::Sum && coeff[k] != 1.0f) v = times_constant(v, coeff[k]);
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
