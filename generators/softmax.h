// Softmax over the middle axis of an (inner, channels, outer) view, numerically stable
// (the maximum is subtracted before exp, as Caffe does).
#pragma once

#include "Halide.h"

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
        max_value(x, o) = maximum(input(x, r, o));
        exponent(x, c, o) = exp(input(x, c, o) - max_value(x, o));
        total(x, o) = sum(exponent(x, r, o));
        output(x, c, o) = exponent(x, c, o) / total(x, o);
    }
};

}  // namespace cortado
