// Rearrange (ops/rearrange.h): the output's six axes read the flat input through strides.
#pragma once

#include "Halide.h"
#include "ops/rearrange.h"

namespace cortado {

using ops::RearrangeShape;

struct Rearrange {
    std::vector<Halide::Var> axes{Halide::Var("i0"), Halide::Var("i1"), Halide::Var("i2"),
                                  Halide::Var("i3"), Halide::Var("i4"), Halide::Var("i5")};
    Halide::Func output{"rearrange"};

    Rearrange(Halide::Func input, const RearrangeShape &s) {
        Halide::Expr at = s.offset;
        for (int d = 0; d < ops::kRearrangeAxes; d++)
            if (s.extents[d] > 1) at += axes[d] * s.strides[d];
        output(axes) = input(at);
    }
};

}  // namespace cortado
