// Convolution's descriptor (Halide-free): the shape, in Caffe's terms.
#pragma once

#include <string>

#include "ops/op.h"

namespace cortado::ops {

struct Conv2dShape {
    static constexpr const char *kOp = "conv2d";
    int batch = 1, in_channels = 1, in_h = 1, in_w = 1;
    int out_channels = 1, out_h = 1, out_w = 1;
    int kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
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

using Conv2dOp = Op<Conv2dShape>;

// Whether a panel of `width` output channels lies within one group, as the channel-lanes
// variants need: every lane of a tile reads the same input channel.
inline bool panel_fits_groups(const Conv2dShape &s, int width) {
    return s.group == 1 || (s.out_channels / s.group) % width == 0;
}

// The length of each output's sum: input channels per group x kernel area.
inline int reduction_depth(const Conv2dShape &s) { return s.in_channels / s.group * s.kernel_h * s.kernel_w; }

}  // namespace cortado::ops
