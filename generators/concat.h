// Concat along the middle axis of (inner, channels_i, outer) views: each input is copied into
// its slice of the output by its own update definition, so nothing is computed twice.
#pragma once

#include <vector>

#include "Halide.h"
#include "ops/concat.h"

namespace cortado {

using ops::ConcatShape;

struct Concat {
    Halide::Var x{"x"}, c{"c"}, o{"o"};
    std::vector<Halide::RDom> slices;  // one per input: (x, channel in input, o)
    Halide::Func output{"concat"};

    Concat(const std::vector<Halide::Func> &inputs, const ConcatShape &s) {
        using namespace Halide;
        output(x, c, o) = undef<float>();
        int offset = 0;
        for (size_t i = 0; i < inputs.size(); i++) {
            RDom r(0, s.inner, 0, s.channels[i], 0, s.outer, "slice" + std::to_string(i));
            output(r.x, r.y + offset, r.z) = inputs[i](r.x, r.y, r.z);
            slices.push_back(r);
            offset += s.channels[i];
        }
    }
};

}  // namespace cortado
