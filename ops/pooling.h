// Pooling's descriptor (Halide-free). Global pooling arrives as a kernel the size of the input.
#pragma once

#include "ops/op.h"

namespace cortado::ops {

struct PoolingShape {
    static constexpr const char *kOp = "pooling";
    int batch = 1, channels = 1, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
    int kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
    int pad_bottom = 0, pad_right = 0;  // the far pads, which only AVE's divisor reads
    bool average = false;               // false: MAX
    bool count_padding = true;          // AVE's divisor counts padding cells (Caffe's rule)

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("batch", batch), visit("channels", channels), visit("in_h", in_h), visit("in_w", in_w);
        visit("out_h", out_h), visit("out_w", out_w), visit("kernel_h", kernel_h), visit("kernel_w", kernel_w);
        visit("stride_h", stride_h), visit("stride_w", stride_w), visit("pad_h", pad_h), visit("pad_w", pad_w);
        visit("pad_bottom", pad_bottom), visit("pad_right", pad_right), visit("average", average);
        visit("count_padding", count_padding);
    }
};

using PoolingOp = Op<PoolingShape>;

}  // namespace cortado::ops
