// A convolution and the MAX pooling that alone reads it, as one kernel (Halide-free): each task
// computes the rows of the convolution (with its bias and activations) that its rows of pooled
// output need and pools them while they are in cache, so the convolution's output never goes to
// memory (CaffePresso's row-level fusion). Rows a window shares with the task above are computed
// twice. The op has one more variant than its fused ones: `unfused` (kUnfusedConvPool), the
// default, which the planner runs as the convolution's and the pooling's own kernels; a tuning
// record or a knob override chooses a fused variant, so a pair fuses only where it measured
// faster (frontend/fusion.h, fuse_max_poolings; compiler/kernel_plan.cc).
#pragma once

#include "ops/conv2d.h"
#include "ops/op.h"
#include "ops/pooling.h"

namespace cortado::ops {

inline constexpr const char *kUnfusedConvPool = "unfused";

struct Conv2dPoolShape {
    static constexpr const char *kOp = "conv2d_pool";
    Conv2dShape conv;  // its out_h and out_w: the convolution's, which the pooling reads
    int pool_kernel_h = 1, pool_kernel_w = 1, pool_stride_h = 1, pool_stride_w = 1;
    int pool_pad_h = 0, pool_pad_w = 0;  // top and left; MAX ignores the far pads
    int pool_out_h = 1, pool_out_w = 1;

    template <typename Visit>
    void fields(Visit &&visit) {
        conv.fields(visit);
        visit("pool_kernel_h", pool_kernel_h), visit("pool_kernel_w", pool_kernel_w);
        visit("pool_stride_h", pool_stride_h), visit("pool_stride_w", pool_stride_w);
        visit("pool_pad_h", pool_pad_h), visit("pool_pad_w", pool_pad_w);
        visit("pool_out_h", pool_out_h), visit("pool_out_w", pool_out_w);
    }
};

using Conv2dPoolOp = Op<Conv2dPoolShape>;

// The MAX pooling of the convolution's output that the shape describes.
inline PoolingShape pooling_of(const Conv2dPoolShape &s) {
    PoolingShape p;
    p.batch = s.conv.batch, p.channels = s.conv.out_channels, p.in_h = s.conv.out_h, p.in_w = s.conv.out_w;
    p.out_h = s.pool_out_h, p.out_w = s.pool_out_w;
    p.kernel_h = s.pool_kernel_h, p.kernel_w = s.pool_kernel_w, p.stride_h = s.pool_stride_h,
    p.stride_w = s.pool_stride_w;
    p.pad_h = p.pad_bottom = s.pool_pad_h, p.pad_w = p.pad_right = s.pool_pad_w;
    return p;
}

// The pair's shape from the convolution's and the pooling's (of the convolution's output).
inline Conv2dPoolShape conv_pool_shape(const Conv2dShape &conv, const PoolingShape &pool) {
    Conv2dPoolShape s;
    s.conv = conv;
    s.pool_kernel_h = pool.kernel_h, s.pool_kernel_w = pool.kernel_w;
    s.pool_stride_h = pool.stride_h, s.pool_stride_w = pool.stride_w;
    s.pool_pad_h = pool.pad_h, s.pool_pad_w = pool.pad_w;
    s.pool_out_h = pool.out_h, s.pool_out_w = pool.out_w;
    return s;
}

// The fused kernel takes each window's maximum over taps clamped to the convolution's output,
// unrolled: every window must hold a cell of the output (the pads are smaller than the kernel and
// the last window starts inside; Caffe's and ONNX's shape rules ensure it) and be at most
// kMostPoolTaps wide and high. frontend/fusion.h fuses only such poolings.
inline constexpr int kMostPoolTaps = 16;
inline bool fusable_max_pooling(const PoolingShape &p) {
    return !p.average && p.kernel_w <= kMostPoolTaps && p.kernel_h <= kMostPoolTaps && p.pad_w < p.kernel_w &&
           p.pad_h < p.kernel_h && (p.out_w - 1) * p.stride_w - p.pad_w < p.in_w &&
           (p.out_h - 1) * p.stride_h - p.pad_h < p.in_h;
}

}  // namespace cortado::ops
