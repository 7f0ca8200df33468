// Softmax over the middle axis of an (inner, channels, outer) view, numerically stable
// (the maximum is subtracted before exp, as Caffe does). A slice holding a NaN or an infinity
// comes out as NaN, as in Caffe, rather than as whatever exp() of a non-finite number gives.
#pragma once

#include <limits>

#include "Halide.h"
#include "generators/non_finite.h"

namespace cortado {

struct SoftmaxShape {
    int inner, channels, outer;
};

struct Softmax {
    Halide::Var x{"x"}, c{"c"}, o{"o"};
    Halide::Func max_value{"max_value"}, exponent{"exponent"}, total{"total"}, output{"softmax"};

    Softmax(Halide::Func input, const SoftmaxShape &s) {
        using namespace Halide;
        RDom r(0, s.channels, "r");
        max_value(x, o) = -std::numeric_limits<float>::infinity();
        max_value(x, o) = max_keeping_nan(input(x, r, o), max_value(x, o));
        // exp(-inf) is 0, which fast math does not promise; a +inf input makes the maximum +inf,
        // and the slice NaN below.
        exponent(x, c, o) = select(is_inf(input(x, c, o)), 0.0f, exp(input(x, c, o) - max_value(x, o)));
        total(x, o) = sum(exponent(x, r, o));
        Expr m = max_value(x, o);
        output(x, c, o) = select(is_nan(m) || is_inf(m), std::numeric_limits<float>::quiet_NaN(),
                                 exponent(x, c, o) / total(x, o));
    }
};

}  // namespace cortado
