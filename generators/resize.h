// Resize (ops/resize.h). Buffers: input (x, y, c, n), output (x, y, c, n). The coordinate
// arithmetic is float, as onnxruntime's is.
#pragma once

#include "Halide.h"
#include "ops/resize.h"

namespace cortado {

using ops::ResizeShape;

// The input coordinate of output coordinate `out` along an axis of `in_length` resized to
// `out_length` with `scale`, per ONNX's coordinate_transformation_mode. align_corners divides by
// the resized length before rounding, in_length x scale, as ONNX does.
// numerator / denominator as a correctly rounded division gives it where the quotient is a whole
// or half number (where nearest's rounding turns): NVIDIA's OpenCL divides within 2.5 ulp, and
// 3 / 1.5 came out above 2. Products are correctly rounded on every backend, so a whole or half
// number h near the quotient is taken when h x denominator gives back the numerator.
inline Halide::Expr quotient(const Halide::Expr &numerator, float denominator) {
    using namespace Halide;
    const Expr q = numerator / denominator;
    const Expr h = round(q * 2.0f) * 0.5f;
    return select(h * denominator == numerator, h, q);
}

inline Halide::Expr source_coordinate_of(Halide::Expr out, int in_length, int out_length, float scale,
                                         const std::string &mode) {
    using namespace Halide;
    const Expr o = cast<float>(out);
    if (mode == "asymmetric") return quotient(o, scale);
    if (mode == "align_corners")
        return out_length == 1 ? Expr(0.0f) : quotient(o * float(in_length - 1), float(in_length) * scale - 1.0f);
    if (mode == "tf_half_pixel_for_nearest") return quotient(o + 0.5f, scale);
    if (mode == "pytorch_half_pixel") return out_length > 1 ? quotient(o + 0.5f, scale) - 0.5f : Expr(0.0f);
    if (mode == "half_pixel_symmetric") {
        const float adjustment = float(out_length) / (scale * float(in_length));
        const float offset = float(in_length) / 2.0f * (1.0f - adjustment);
        return offset + quotient(o + 0.5f, scale) - 0.5f;
    }
    return quotient(o + 0.5f, scale) - 0.5f;  // half_pixel
}

// The arithmetic is strict: a division turned into a product by the reciprocal moves coordinates
// that lie exactly between two elements, and with them nearest's choice.
inline Halide::Expr source_coordinate(Halide::Expr out, int in_length, int out_length, float scale,
                                      const std::string &mode) {
    return Halide::strict_float(source_coordinate_of(std::move(out), in_length, out_length, scale, mode));
}

inline Halide::Expr nearest_index(Halide::Expr coordinate, int length, const std::string &rounding) {
    using namespace Halide;
    Expr index = rounding == "floor"               ? floor(coordinate)
                 : rounding == "ceil"              ? ceil(coordinate)
                 : rounding == "round_prefer_ceil" ? floor(coordinate + 0.5f)
                                                   : ceil(coordinate - 0.5f);
    return clamp(cast<int>(index), 0, length - 1);
}

struct Resize {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::Func output{"resize"};

    Resize(Halide::Func input, const ResizeShape &s) {
        using namespace Halide;
        const Expr sx = source_coordinate(x, s.in_w, s.out_w, s.scale_w, s.coordinates);
        const Expr sy = source_coordinate(y, s.in_h, s.out_h, s.scale_h, s.coordinates);
        if (s.mode == "nearest") {
            output(x, y, c, n) =
                input(nearest_index(sx, s.in_w, s.rounding), nearest_index(sy, s.in_h, s.rounding), c, n);
            return;
        }
        const Expr fx = clamp(sx, 0.0f, float(s.in_w - 1)), fy = clamp(sy, 0.0f, float(s.in_h - 1));
        const Expr x0 = cast<int>(floor(fx)), y0 = cast<int>(floor(fy));
        const Expr x1 = min(x0 + 1, s.in_w - 1), y1 = min(y0 + 1, s.in_h - 1);
        const Expr wx = fx - cast<float>(x0), wy = fy - cast<float>(y0);
        // An element weighted 0 takes no part (an infinite one would make 0 x inf = NaN). Strict,
        // so that fast math does not rewrite the blend as a + (b - a) w, which is NaN for an
        // infinite a.
        const auto blend = [](Expr a, Expr b, Expr w) {
            return select(w == 0.0f, a, strict_float(a * (1.0f - w) + b * w));
        };
        output(x, y, c, n) = blend(blend(input(x0, y0, c, n), input(x1, y0, c, n), wx),
                                   blend(input(x0, y1, c, n), input(x1, y1, c, n), wx), wy);
    }
};

}  // namespace cortado
