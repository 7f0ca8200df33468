// The depthwise convolution on the GPU family (gpu_depthwise; algorithm: generators/conv2d.h
// with one input channel per group). It is memory-bound, so the schedule is shaped by the
// loads: a thread computes `rows` outputs down one column, keeping them in registers, so
// that rows of its window are loaded once for all of them; a block's `threads` threads take
// consecutive pixels of one channel plane, with rows and columns fused so that 7- and 14-wide
// maps fill whole warps and neighbouring threads read and write neighbouring addresses (NCHW's
// contiguous axis is x; channels in the threads would stride across planes). The window comes
// through the L1 cache. Reached on MobileNetV2's depthwise layers: docs/PERFORMANCE.md,
// "Depthwise convolution".
#pragma once

#include <algorithm>

#include "generators/conv2d.h"

namespace cortado::schedules::gpu {

inline void schedule_conv2d_depthwise(Conv2d &a, const Conv2dShape &s, int threads, int rows) {
    using namespace Halide;
    rows = std::min(rows, s.out_h);
    Var yo{"yo"}, yi{"yi"}, pixel{"pixel"}, block{"block"}, thread{"thread"};
    a.output.split(a.y, yo, yi, rows, TailStrategy::ShiftInwards)
        .fuse(a.x, yo, pixel)
        .split(pixel, block, thread, threads, TailStrategy::GuardWithIf)
        .reorder(yi, thread, block, a.c, a.n)
        .gpu_blocks(block, a.c, a.n)
        .gpu_threads(thread)
        .unroll(yi);
    a.conv.compute_at(a.output, thread).store_in(MemoryType::Register).unroll(a.y);
    a.conv.update().reorder(a.y, a.r.x, a.r.y, a.r.z).unroll(a.y).unroll(a.r.x).unroll(a.r.y);
}

}  // namespace cortado::schedules::gpu
