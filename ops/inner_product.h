// InnerProduct's descriptor (Halide-free): `rows` inputs of `inputs` values each, `outputs`
// neurons.
#pragma once

#include "ops/op.h"

namespace cortado::ops {

struct InnerProductShape {
    static constexpr const char *kOp = "inner_product";
    int rows = 1, inputs = 1, outputs = 1;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("rows", rows), visit("inputs", inputs), visit("outputs", outputs);
    }
};

using InnerProductOp = Op<InnerProductShape>;

}  // namespace cortado::ops
