// The half-precision convolution (ops/conv2d_fp16.h), output channels in the vector lanes as in
// Conv2dInt8: the input rounded to half as it is staged (zero-padded), the weights packed as
// halves in panels of `width` output channels, packed(lane, k, panel) with k = (ci·kernel_h +
// ky)·kernel_w + kx, as ops::WeightPacking::ColumnPanels orders fp32 ones. The reduction is cut
// into chunks of `chunk` input channels: `part` sums a chunk's products in the product type
// (half, where the target computes in half; else fp32 on the half operands), and `tile` adds
// the chunks in fp32. The epilogue runs in fp32.
// Tensors: input (x, y, c, n) as Caffe's NCHW; output and residual (q, c, n, 1) with q = y·out_w
// + x; weights (lane, k, panel).
#pragma once

#include "Halide.h"
#include "generators/elementwise.h"
#include "ops/conv2d_fp16.h"

namespace cortado {

struct Conv2dFp16 {
    Halide::Var q{"q"}, c{"c"}, n{"n"}, unit{"unit"};
    Halide::Var lane{"lane"}, panel{"panel"}, chunk{"chunk"};
    Halide::Var x{"x"}, y{"y"}, ci{"ci"};
    Halide::RDom r;                       // (kx, ky, channel within the chunk)
    Halide::RDom chunks;                  // the chunks of a group's channels
    Halide::Func staged{"staged"};        // (x, y, ci, n): the padded input as halves
    Halide::Func part{"conv_fp16_part"};  // part(lane, q, n, panel, chunk): one chunk's sums
    Halide::Func tile{"conv_fp16"};       // tile(lane, q, n, panel): fp32 sums of the chunks
    Halide::Func output{"conv2d_fp16"};   // (q, c, n, unit), the epilogue applied
    int width;

    Conv2dFp16(Halide::Func input, Halide::Func packed, Halide::Func bias, const ops::Conv2dShape &s,
               const ops::Epilogue &epilogue, int panel_width, int chunk_channels, bool half_products,
               Halide::Func residual = Halide::Func())
        : width(panel_width) {
        using namespace Halide;
        using namespace Halide::ConciseCasts;
        const int in_per_group = s.in_channels / s.group, out_per_group = s.out_channels / s.group;
        const Expr in_x = x - s.pad_w, in_y = y - s.pad_h;
        const Expr inside = in_x >= 0 && in_x < s.in_w && in_y >= 0 && in_y < s.in_h;
        const Expr value = input(clamp(in_x, 0, s.in_w - 1), clamp(in_y, 0, s.in_h - 1), ci, n);
        staged(x, y, ci, n) = select(inside, f16(value), f16(0));

        const Type product = half_products ? Float(16) : Float(32);
        r = RDom(0, s.kernel_w, 0, s.kernel_h, 0, chunk_channels, "r");
        chunks = RDom(0, in_per_group / chunk_channels, "chunks");
        const Expr px = q % s.out_w, py = q / s.out_w;
        const Expr first = s.group == 1 ? Expr(0) : (panel * width / out_per_group) * in_per_group;
        const Expr channel = chunk * chunk_channels + r.z;
        part(lane, q, n, panel, chunk) = cast(product, 0);
        part(lane, q, n, panel, chunk) +=
            cast(product, staged(px * s.stride_w + r.x * s.dilation_w, py * s.stride_h + r.y * s.dilation_h,
                                 first + channel, n)) *
            cast(product, packed(lane, (channel * s.kernel_h + r.y) * s.kernel_w + r.x, panel));
        tile(lane, q, n, panel) = 0.0f;
        tile(lane, q, n, panel) += f32(part(lane, q, n, panel, chunks));
        Expr sum = tile(c % width, q, n, c / width);
        if (epilogue.bias) sum = sum + bias(c);
        output(q, c, n, unit) = fused_activations(sum, epilogue, residual_at(residual, {q, c, n, unit}));
    }
};

}  // namespace cortado
