// Pooling, Caffe semantics: MAX over the window clipped to the image; AVE divides the sum by
// the window clipped to the *padded* extent (Caffe counts padding cells that lie inside
// in + pad), or with count_padding off by the cells inside the image (ONNX's
// count_include_pad=0). Unlike Caffe's MAX, a NaN in the window is kept, never hidden.
// Buffers: input (x, y, c, n), output (x, y, c, n); either may be channel-blocked (ops::Layout):
// (b·x + c % b, y, c / b, n), read and written through the same window (the Window form).
#pragma once

#include <functional>
#include <limits>

#include "Halide.h"
#include "generators/channel_blocks.h"
#include "generators/non_finite.h"
#include "ops/pooling.h"

namespace cortado {

using ops::PoolingShape;

// How MAX pooling reads its window. Window: one reduction over the window of the input with a
// -inf fill outside (any target). The separable forms take the maximum down each column of the
// window, then across kernel_w of those; max is exact, so only the taps' order changes. Their
// taps are unrolled, which bounds the kernel (supported_max_pooling_form() falls back to Window).
//  - ClampedRows: coordinates clamped to the image, which repeats a cell already in the window
//    when every window holds one (Caffe's and ONNX's shape rules ensure it: pad < kernel, the
//    last window starts inside the image). Rows wide enough for interior vectors load plainly.
//  - FramedPlane: each plane copied into a frame of -inf as wide as the pads, so no load needs
//    a bounds test even in rows so narrow that every vector touches an edge.
enum class MaxPoolingForm { Window, ClampedRows, FramedPlane };

// A family's choice of MAX window form for its variant, bound in its bindings.cc
// (generators/schedule_registry.h); a variant with none takes Window.
using MaxPoolingFormRule = std::function<MaxPoolingForm(const PoolingShape &, const Halide::Target &)>;

inline bool every_window_holds_an_image_cell(const PoolingShape &s) {
    return s.pad_w < s.kernel_w && s.pad_h < s.kernel_h && (s.out_w - 1) * s.stride_w - s.pad_w < s.in_w &&
           (s.out_h - 1) * s.stride_h - s.pad_h < s.in_h;
}

// The form a schedule asks for, where the shape allows it.
inline MaxPoolingForm supported_max_pooling_form(const PoolingShape &s, MaxPoolingForm wanted) {
    constexpr int kMostUnrolledTaps = 16;
    if (s.average || s.kernel_w > kMostUnrolledTaps || s.kernel_h > kMostUnrolledTaps) return MaxPoolingForm::Window;
    if (wanted == MaxPoolingForm::ClampedRows && !every_window_holds_an_image_cell(s))
        return MaxPoolingForm::FramedPlane;
    return wanted;
}

struct Pooling {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    const MaxPoolingForm max_form;
    Halide::RDom r;                         // Window: the window
    Halide::Func window_max{"window_max"};  // Window
    Halide::RDom image;                     // FramedPlane: the image in its frame
    Halide::Func framed{"framed"};          // FramedPlane
    Halide::Func column_max{"column_max"};  // both separable forms
    // The input with the window's fill outside the image (AVE and Window); inlined unless a
    // schedule stages rows of it, so that the window's loads need no bounds selects.
    Halide::Func padded{"padded"};
    // AVE: the window's sum, a Func so that schedules can vectorise it or split it across threads.
    Halide::Func window_sum{"window_sum"};
    // Blocked layouts (input_block, output_block > 0): the input seen in NCHW coordinates and the
    // result in NCHW coordinates, which `output` stores blocked.
    const int input_block, output_block;
    Halide::Func unblocked_input{"unblocked_input"};
    Halide::Func pooled{"pooled"};
    Halide::Func output{"pooling"};

    // The reduction over the window in the Window form, which schedules place and vectorise:
    // the sum (AVE) or the maximum (MAX).
    Halide::Func window_reduction(const PoolingShape &s) const { return s.average ? window_sum : window_max; }

    Pooling(Halide::Func stored_input, const PoolingShape &s, MaxPoolingForm wanted, int input_channel_block = 0,
            int output_channel_block = 0)
        : max_form(input_channel_block > 0 || output_channel_block > 0 ? MaxPoolingForm::Window
                                                                       : supported_max_pooling_form(s, wanted)),
          input_block(input_channel_block),
          output_block(output_channel_block) {
        using namespace Halide;
        Func input = stored_input;
        if (input_block > 0) {
            unblocked_input(x, y, c, n) =
                stored_input(blocked_column(x, c, input_block), y, channel_block(c, input_block), n);
            input = unblocked_input;
        }
        Expr x0 = x * s.stride_w - s.pad_w, y0 = y * s.stride_h - s.pad_h;
        if (max_form != MaxPoolingForm::Window) {
            // likely() lets Halide split off the edge iterations, so the steady state loads plainly.
            auto clamped_x = [&](Expr e) { return clamp(likely(e), 0, s.in_w - 1); };
            auto clamped_y = [&](Expr e) { return clamp(likely(e), 0, s.in_h - 1); };
            std::function<Expr(Expr, Expr)> source;
            if (max_form == MaxPoolingForm::FramedPlane) {
                image = RDom(0, s.in_w, 0, s.in_h, "image");
                framed(x, y, c, n) = -std::numeric_limits<float>::infinity();
                framed(image.x, image.y, c, n) = input(image.x, image.y, c, n);
                source = [&](Expr xi, Expr yi) { return framed(xi, yi, c, n); };
            } else {
                source = [&](Expr xi, Expr yi) { return input(xi, clamped_y(yi), c, n); };
            }
            Expr column = source(x, y0);
            for (int i = 1; i < s.kernel_h; i++) column = max_keeping_nan(source(x, y0 + i), column);
            column_max(x, y, c, n) = column;
            auto column_at = [&](Expr xi) {
                return column_max(max_form == MaxPoolingForm::FramedPlane ? xi : clamped_x(xi), y, c, n);
            };
            Expr row = column_at(x0);
            for (int i = 1; i < s.kernel_w; i++) row = max_keeping_nan(column_at(x0 + i), row);
            output(x, y, c, n) = row;
            return;
        }
        r = RDom(0, s.kernel_w, 0, s.kernel_h, "r");
        const float fill = s.average ? 0.0f : -std::numeric_limits<float>::infinity();
        Func outside = BoundaryConditions::constant_exterior(input, fill,
                                                             {{0, s.in_w}, {0, s.in_h}, {0, s.channels}, {0, s.batch}});
        padded(x, y, c, n) = outside(x, y, c, n);
        Expr window = padded(x0 + r.x, y0 + r.y, c, n);
        Func &result = output_block > 0 ? pooled : output;
        Expr total;
        if (s.average) {
            window_sum(x, y, c, n) = 0.0f;
            window_sum(x, y, c, n) += window;
            total = window_sum(x, y, c, n);
        }
        if (s.average && !s.count_padding) {
            Expr w = min(x0 + s.kernel_w, s.in_w) - max(x0, 0);
            Expr h = min(y0 + s.kernel_h, s.in_h) - max(y0, 0);
            result(x, y, c, n) = total / cast<float>(w * h);
        } else if (s.average) {
            Expr w = min(x0 + s.kernel_w, s.in_w + s.pad_right) - x0;
            Expr h = min(y0 + s.kernel_h, s.in_h + s.pad_bottom) - y0;
            result(x, y, c, n) = total / cast<float>(w * h);
        } else {
            window_max(x, y, c, n) = -std::numeric_limits<float>::infinity();
            window_max(x, y, c, n) = max_keeping_nan(window, window_max(x, y, c, n));
            result(x, y, c, n) = window_max(x, y, c, n);
        }
        // Stored blocked: x is b·x + the channel within its block, c the block.
        if (output_block > 0)
            output(x, y, c, n) = pooled(nchw_column(x, output_block), y, nchw_channel(x, c, output_block), n);
    }
};

}  // namespace cortado
