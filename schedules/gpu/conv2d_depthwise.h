// The depthwise convolution on the GPU family (gpu_depthwise; algorithm: generators/conv2d.h
// with one input channel per group). It is memory-bound, so the schedule is shaped by the
// loads: a thread computes a tile of `rows` x `cols` outputs, kept in registers, so that the
// windows' overlap is loaded once for all of them; a block's `threads` threads take
// consecutive pixels of one channel plane, with rows and columns fused so that 7- and 14-wide
// maps fill whole warps and neighbouring threads read and write neighbouring addresses (NCHW's
// contiguous axis is x; channels in the threads would stride across planes). The window comes
// through the L1 cache. MobileNetV2's depthwise layers reached 64.6% (batch 5) and 68.0% (batch
// 20) of the H100's bandwidth roofline in kernel time, 29.4% at batch 1, where kernels last 1.5-3 us
// (docs/PERFORMANCE.md, "Depthwise convolution on the H100").
#pragma once

#include <algorithm>

#include "generators/conv2d.h"

namespace cortado::schedules::gpu {

inline void schedule_conv2d_depthwise(Conv2d &a, const Conv2dShape &s, int threads, int rows, int cols, int channels) {
    using namespace Halide;
    rows = std::min(rows, s.out_h);
    cols = std::min(cols, s.out_w);
    channels = std::min(channels, s.out_channels);
    Var xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"}, co{"co"}, ci{"ci"}, pixel{"pixel"}, block{"block"}, thread{"thread"};
    a.output.split(a.y, yo, yi, rows, TailStrategy::ShiftInwards)
        .split(a.x, xo, xi, cols, TailStrategy::ShiftInwards)
        .fuse(xo, yo, pixel)
        .split(pixel, block, thread, threads, TailStrategy::GuardWithIf)
        .split(a.c, co, ci, channels, TailStrategy::ShiftInwards)
        .reorder(xi, yi, thread, ci, block, co, a.n)
        .gpu_blocks(block, co, a.n)
        .gpu_threads(thread, ci)
        .unroll(xi)
        .unroll(yi);
    a.conv.compute_at(a.output, thread).store_in(MemoryType::Register).unroll(a.x).unroll(a.y);
    a.conv.update().reorder(a.x, a.y, a.r.x, a.r.y, a.r.z).unroll(a.x).unroll(a.y).unroll(a.r.x).unroll(a.r.y);
}

}  // namespace cortado::schedules::gpu
