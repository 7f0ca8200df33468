// Local response normalisation's descriptor (Halide-free).
#pragma once

#include "ops/op.h"

namespace cortado::ops {

struct LRNShape {
    static constexpr const char *kOp = "lrn";
    int batch = 1, channels = 1, h = 1, w = 1, local_size = 5;
    float alpha = 1.0f, beta = 0.75f, k = 1.0f;
    bool across_channels = true;  // false: WITHIN_CHANNEL

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("batch", batch), visit("channels", channels), visit("h", h), visit("w", w);
        visit("local_size", local_size), visit("alpha", alpha), visit("beta", beta), visit("k", k);
        visit("across_channels", across_channels);
    }
};

using LRNOp = Op<LRNShape>;

}  // namespace cortado::ops
