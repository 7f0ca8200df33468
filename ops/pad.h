// Pad's descriptor (Halide-free): a border around each plane of an NCHW tensor: a constant, the
// plane reflected about its edge (not repeating it), the edge repeated, or the plane wrapped.
#pragma once

#include <string>

#include "ops/op.h"

namespace cortado::ops {

struct PadShape {
    static constexpr const char *kOp = "pad";
    int batch = 1, channels = 1, in_h = 1, in_w = 1;
    int top = 0, left = 0, bottom = 0, right = 0;
    float value = 0.0f;
    std::string mode = "constant";  // constant, reflect, edge or wrap

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("batch", batch), visit("channels", channels), visit("in_h", in_h), visit("in_w", in_w);
        visit("top", top), visit("left", left), visit("bottom", bottom), visit("right", right);
        visit("value", value), visit("mode", mode);
    }
    int out_h() const { return in_h + top + bottom; }
    int out_w() const { return in_w + left + right; }
};

using PadOp = Op<PadShape>;

}  // namespace cortado::ops
