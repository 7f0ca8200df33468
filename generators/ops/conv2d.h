// Convolution's descriptor (Halide-free): the shape, in Caffe's terms.
#pragma once

#include <string>

#include "generators/ops/op.h"

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

// The direct variants with the output channels in the vector lanes (generators/
// conv2d_channel_lanes.h): the input in Caffe's layout, the weights in column panels, and the
// output read as (pixels, channels, images, 1). Every family names them <family>_direct_channel_lanes.
inline bool is_direct_channel_lanes(const std::string &variant) {
    return variant_has_suffix(variant, "_direct_channel_lanes");
}

// The variants that read and write channel-blocked tensors (ops::Layout): the CPU's with the
// output channels in the vector lanes, whose tiles hold whole blocks and read the input by
// broadcasts, and the CPU's Winograd, whose input transform then runs along the channels and
// whose output transform has them in the lanes (with the products channel-innermost). Every
// other variant reads and writes NCHW.
inline bool handles_channel_blocks(const std::string &variant) {
    return variant == "cpu_direct_channel_lanes" || variant == "cpu_gemm_1x1_channel_lanes" ||
           variant == "cpu_winograd_f2" || variant == "cpu_winograd_f4" || variant == "cpu_winograd_f2_5x5";
}

// Whether a panel of `width` output channels lies within one group, as the channel-lanes
// variants need: every lane of a tile reads the same input channel.
inline bool panel_fits_groups(const Conv2dShape &s, int width) {
    return s.group == 1 || (s.out_channels / s.group) % width == 0;
}

// The length of each output's sum: input channels per group x kernel area.
inline int reduction_depth(const Conv2dShape &s) { return s.in_channels / s.group * s.kernel_h * s.kernel_w; }

}  // namespace cortado::ops
