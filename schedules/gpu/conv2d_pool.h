// The fused convolution and MAX pooling of the GPU family (gpu_conv_pool; algorithm:
// generators/conv2d_pool.h with masked taps): a thread per pooled pixel and `channels` channels,
// blocks of `threads_x` x `threads_y` pooled pixels. Each thread computes its window's
// convolution outputs for its channels in registers (kernel_h x kernel_w x channels
// accumulators) and takes their maximum; windows that overlap compute their shared outputs
// each, so the convolution runs about (kernel / stride)² times over.
#pragma once

#include "generators/conv2d_pool.h"

namespace cortado::schedules::gpu {

inline void schedule_conv2d_pool(Conv2dPool &a, const Conv2dPoolShape &s, int channels, int threads_x, int threads_y) {
    using namespace Halide;
    Var co{"co"}, ci{"ci"}, xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"}, rest{"rest"};
    a.output
        .split(a.c, co, ci, channels,
               s.conv.out_channels % channels == 0 ? TailStrategy::RoundUp : TailStrategy::ShiftInwards)
        .split(a.x, xo, xi, threads_x, TailStrategy::GuardWithIf)
        .split(a.y, yo, yi, threads_y, TailStrategy::GuardWithIf)
        .reorder(ci, xi, yi, xo, yo, co, a.n)
        .fuse(co, a.n, rest)
        .gpu_blocks(xo, yo, rest)
        .gpu_threads(xi, yi)
        .unroll(ci);
    a.conv.conv.compute_at(a.output, xi)
        .store_in(MemoryType::Register)
        .unroll(a.conv.x)
        .unroll(a.conv.y)
        .unroll(a.conv.c);
    a.conv.conv.update()
        .reorder(a.conv.x, a.conv.y, a.conv.c, a.conv.r.x, a.conv.r.y, a.conv.r.z, a.conv.n)
        .unroll(a.conv.x)
        .unroll(a.conv.y)
        .unroll(a.conv.c);
}

}  // namespace cortado::schedules::gpu
