// Rearrange's descriptor (Halide-free): a copy that reads its input through strides,
//   out(i0, ..., i5) = in(offset + i0 * strides[0] + ... + i5 * strides[5]),
// axes innermost first. Transpose (permuted strides), Slice, Split and Crop (an offset, and
// steps as strides) and broadcasting (a zero stride along a broadcast axis) are all this one op.
#pragma once

#include <vector>

#include "ops/op.h"

namespace cortado::ops {

inline constexpr int kRearrangeAxes = 6;

struct RearrangeShape {
    static constexpr const char *kOp = "rearrange";
    std::vector<int> extents;  // kRearrangeAxes of them, innermost first; 1 past the output's rank
    std::vector<int> strides;  // input elements per step along each output axis (may be 0 or negative)
    int offset = 0;            // the input element of output (0, ..., 0)
    int input_count = 1;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("extents", extents), visit("strides", strides), visit("offset", offset),
            visit("input_count", input_count);
    }
};

using RearrangeOp = Op<RearrangeShape>;

}  // namespace cortado::ops
