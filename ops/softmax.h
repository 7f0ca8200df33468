// Softmax's descriptor (Halide-free): the input seen as (inner, channels, outer), normalised
// over channels.
#pragma once

#include "ops/op.h"

namespace cortado::ops {

struct SoftmaxShape {
    static constexpr const char *kOp = "softmax";
    int inner = 1, channels = 1, outer = 1;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("inner", inner), visit("channels", channels), visit("outer", outer);
    }
};

using SoftmaxOp = Op<SoftmaxShape>;

}  // namespace cortado::ops
