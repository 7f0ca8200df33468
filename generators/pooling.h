// Pooling, Caffe semantics: MAX over the window clipped to the image; AVE divides the sum by
// the window clipped to the *padded* extent (Caffe counts padding cells that lie inside
// in + pad), or with count_padding off by the cells inside the image (ONNX's
// count_include_pad=0). Unlike Caffe's MAX, a NaN in the window is kept, never hidden.
// Buffers: input (x, y, c, n), output (x, y, c, n).
#pragma once

#include <limits>

#include "Halide.h"
#include "generators/non_finite.h"
#include "generators/ops/pooling.h"

namespace cortado {

using ops::PoolingShape;

struct Pooling {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::RDom r;
    Halide::Func window_max{"window_max"};  // MAX only
    // The input with the window's fill outside the image; inlined unless a schedule stages rows
    // of it, so that the window's loads need no bounds selects.
    Halide::Func padded{"padded"};
    Halide::Func output{"pooling"};

    Pooling(Halide::Func input, const PoolingShape &s) {
        using namespace Halide;
        r = RDom(0, s.kernel_w, 0, s.kernel_h, "r");
        const float fill = s.average ? 0.0f : -std::numeric_limits<float>::infinity();
        Func outside = BoundaryConditions::constant_exterior(input, fill,
                                                             {{0, s.in_w}, {0, s.in_h}, {0, s.channels}, {0, s.batch}});
        padded(x, y, c, n) = outside(x, y, c, n);
        Expr x0 = x * s.stride_w - s.pad_w, y0 = y * s.stride_h - s.pad_h;
        Expr window = padded(x0 + r.x, y0 + r.y, c, n);
        if (s.average && !s.count_padding) {
            Expr w = min(x0 + s.kernel_w, s.in_w) - max(x0, 0);
            Expr h = min(y0 + s.kernel_h, s.in_h) - max(y0, 0);
            output(x, y, c, n) = sum(window) / cast<float>(w * h);
        } else if (s.average) {
            Expr w = min(x0 + s.kernel_w, s.in_w + s.pad_right) - x0;
            Expr h = min(y0 + s.kernel_h, s.in_h + s.pad_bottom) - y0;
            output(x, y, c, n) = sum(window) / cast<float>(w * h);
        } else {
            window_max(x, y, c, n) = -std::numeric_limits<float>::infinity();
            window_max(x, y, c, n) = max_keeping_nan(window, window_max(x, y, c, n));
            output(x, y, c, n) = window_max(x, y, c, n);
        }
    }
};

}  // namespace cortado
