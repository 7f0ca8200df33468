// InnerProduct: out(j, m) = bias(j) + sum_k in(k, m) * weights(k, j), optional fused ReLU.
// Weights arrive packed with k innermost (Caffe's N x K layout; the runtime transposes
// `transpose: true` blobs once at create time). The dot products are split into
// `lanes`-wide partial sums so the k loop vectorises; the remainder is added separately.
#pragma once

#include "Halide.h"
#include "generators/elementwise.h"
#include "ops/inner_product.h"

namespace cortado {

using ops::InnerProductShape;

struct InnerProduct {
    Halide::Var lane{"lane"}, j{"j"}, m{"m"};
    Halide::RDom whole;  // k / lanes full chunks
    Halide::Func partial{"partial"}, output{"inner_product"};
    int lanes;

    InnerProduct(Halide::Func input, Halide::Func weights, Halide::Func bias, const InnerProductShape &s,
                 const ops::Epilogue &epilogue, int vector_lanes)
        : lanes(vector_lanes) {
        using namespace Halide;
        const int chunks = s.inputs / lanes;
        const int tail = s.inputs - chunks * lanes;
        partial(lane, j, m) = 0.0f;
        if (chunks > 0) {
            whole = RDom(0, chunks, "whole");
            Expr k = whole * lanes + lane;
            partial(lane, j, m) += input(k, m) * weights(k, j);
        }
        Expr total = epilogue.bias ? bias(j) : Expr(0.0f);
        for (int l = 0; l < lanes; l++) total += partial(l, j, m);
        if (tail > 0) {
            RDom rest(chunks * lanes, tail, "rest");
            total += sum(input(rest, m) * weights(rest, j));
        }
        total = fused_activations(total, epilogue);
        output(j, m) = total;
    }
};

}  // namespace cortado
