// Resize's descriptor (Halide-free): each plane of an NCHW tensor resampled to out_h x out_w, as
// ONNX's Resize (and Upsample) define it: an output coordinate maps to an input one by the
// coordinate transformation, then takes the nearest input element (by the rounding) or the
// bilinear blend of the four around it (the coordinate clamped to the plane, as onnxruntime
// and PyTorch clamp it; an element weighted 0 takes no part).
#pragma once

#include <string>

#include "ops/op.h"

namespace cortado::ops {

struct ResizeShape {
    static constexpr const char *kOp = "resize";
    int batch = 1, channels = 1, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
    float scale_h = 1.0f, scale_w = 1.0f;  // the scales the transformation divides by
    std::string mode = "nearest";          // nearest or linear
    // half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nearest or
    // half_pixel_symmetric
    std::string coordinates = "half_pixel";
    std::string rounding = "round_prefer_floor";  // nearest's: round_prefer_floor, round_prefer_ceil, floor, ceil

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("batch", batch), visit("channels", channels), visit("in_h", in_h), visit("in_w", in_w);
        visit("out_h", out_h), visit("out_w", out_w), visit("scale_h", scale_h), visit("scale_w", scale_w);
        visit("mode", mode), visit("coordinates", coordinates), visit("rounding", rounding);
    }
};

using ResizeOp = Op<ResizeShape>;

}  // namespace cortado::ops
