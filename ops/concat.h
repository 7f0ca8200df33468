// Concat's descriptor (Halide-free): each input seen as (inner, channels[i], outer).
#pragma once

#include <vector>

#include "ops/op.h"

namespace cortado::ops {

struct ConcatShape {
    static constexpr const char *kOp = "concat";
    int inner = 1, outer = 1;
    std::vector<int> channels;  // one per input

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("inner", inner), visit("outer", outer), visit("channels", channels);
    }
    int inputs() const { return static_cast<int>(channels.size()); }
};

using ConcatOp = Op<ConcatShape>;

}  // namespace cortado::ops
