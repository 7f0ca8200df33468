// The transposed convolution's descriptor (Halide-free): ONNX's ConvTranspose and Caffe's
// Deconvolution. Each input pixel scatters its kernel into the output; written as the gather
//   out(x, y, co) = bias(co) + sum over ci of its group, ky, kx of
//                   in((x + pad_w - kx dilation_w) / stride_w, (y + pad_h - ky dilation_h) / stride_h, ci)
//                   * w(ci, co within its group, ky, kx),
// over the taps whose division is exact and lands inside the input. Weights in Caffe's and
// ONNX's order: in_channels x out_channels / group x kernel_h x kernel_w.
#pragma once

#include "ops/op.h"

namespace cortado::ops {

struct Deconv2dShape {
    static constexpr const char *kOp = "deconv2d";
    int batch = 1, in_channels = 1, in_h = 1, in_w = 1;
    int out_channels = 1, out_h = 1, out_w = 1;
    int kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
    int pad_h = 0, pad_w = 0;  // the top and left pads; the output size gives the others
    int dilation_h = 1, dilation_w = 1, group = 1;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("batch", batch), visit("in_channels", in_channels), visit("in_h", in_h), visit("in_w", in_w);
        visit("out_channels", out_channels), visit("out_h", out_h), visit("out_w", out_w);
        visit("kernel_h", kernel_h), visit("kernel_w", kernel_w), visit("stride_h", stride_h);
        visit("stride_w", stride_w), visit("pad_h", pad_h), visit("pad_w", pad_w);
        visit("dilation_h", dilation_h), visit("dilation_w", dilation_w), visit("group", group);
    }
};

using Deconv2dOp = Op<Deconv2dShape>;

}  // namespace cortado::ops
