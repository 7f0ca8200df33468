// Softmax over the middle axis of an (inner, channels, outer) view, numerically stable
// (the maximum is subtracted before exp, as Caffe does). A slice holding a NaN or an infinity
// comes out as NaN, as in Caffe, rather than as whatever exp() of a non-finite number gives.
#pragma once

#include <limits>

#include "Halide.h"
#include "generators/non_finite.h"
#include "ops/softmax.h"

namespace cortado {

using ops::SoftmaxShape;

struct Softmax {
    Halide::Var x{"x"}, c{"c"}, o{"o"}, lane{"lane"};
    Halide::Func partial_max{"partial_max"}, max_value{"max_value"}, exponent{"exponent"},
        partial_total{"partial_total"}, total{"total"}, output{"softmax"};
    int lanes, sum_lanes;

    // The maximum over the channels runs as `lanes` interleaved partial maxima, then one over
    // them, so that a CPU keeps them in one vector: a NaN-keeping maximum is a select, which
    // Halide cannot rfactor, and one running maximum is a serial chain of compares and blends.
    // With `total_lanes` > 1 the sum of the exponentials runs the same way (`partial_total`),
    // so that a GPU spreads both over the threads of a block; otherwise it is one running sum.
    Softmax(Halide::Func input, const SoftmaxShape &s, int max_lanes, int total_lanes = 1)
        : lanes(max_lanes), sum_lanes(total_lanes) {
        using namespace Halide;
        const float infinity = std::numeric_limits<float>::infinity();
        RDom chunk(0, (s.channels + lanes - 1) / lanes, "chunk");
        // Channels past the last repeat it, which leaves a maximum unchanged.
        Expr channel = min(chunk * lanes + lane, s.channels - 1);
        partial_max(lane, x, o) = -infinity;
        partial_max(lane, x, o) = max_keeping_nan(input(x, channel, o), partial_max(lane, x, o));
        RDom l(0, lanes, "l");
        max_value(x, o) = -infinity;
        max_value(x, o) = max_keeping_nan(partial_max(l, x, o), max_value(x, o));
        // exp(-inf) is 0, which fast math does not promise; a +inf input makes the maximum +inf,
        // and the slice NaN below.
        exponent(x, c, o) = select(is_inf(input(x, c, o)), 0.0f, exp(input(x, c, o) - max_value(x, o)));
        if (sum_lanes > 1) {
            RDom part(0, (s.channels + sum_lanes - 1) / sum_lanes, "part");
            part.where(part * sum_lanes + lane < s.channels);
            partial_total(lane, x, o) = 0.0f;
            // The predicate skips channels past the last; the clamp tells bounds inference so.
            partial_total(lane, x, o) += exponent(x, min(part * sum_lanes + lane, s.channels - 1), o);
            RDom l_sum(0, sum_lanes, "l_sum");
            total(x, o) = sum(partial_total(l_sum, x, o));
        } else {
            RDom r(0, s.channels, "r");
            total(x, o) = sum(exponent(x, r, o));
        }
        Expr m = max_value(x, o);
        output(x, c, o) =
            select(is_nan(m) || is_inf(m), std::numeric_limits<float>::quiet_NaN(), exponent(x, c, o) / total(x, o));
    }
};

}  // namespace cortado
