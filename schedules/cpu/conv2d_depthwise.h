// The depthwise convolution of every CPU family (cpu_depthwise; algorithm: generators/conv2d.h
// with one input channel per group). It is memory-bound (9 FMAs per output for 3x3), so the
// schedule streams each channel plane once: a parallel task is a strip of rows of one plane, or
// several small planes (each task costs the thread pool a lock), the zero-padded input of a
// strip is built just before it (it stays in L1/L2), and a register tile of
// `rows` x `vectors_x` vectors of output x sums the kernel window with every weight a scalar
// broadcast. Output x is in the lanes because it is the contiguous axis of NCHW; channels in the
// lanes would gather across planes. Stride 2 reads x as even/odd deinterleaved vectors.
// MobileNetV2's ten depthwise layers reached 58.6-86.7% of the bandwidth roofline per batch size
// (1, 5, 20) on a 2-core Zen 4 VM; stride-1 maps of 28 and narrower 35-52% (docs/PERFORMANCE.md,
// "Depthwise convolution on the host").
#pragma once

#include <algorithm>

#include "generators/conv2d.h"

namespace cortado::schedules::cpu {

// The widest power-of-two vector, at most `lanes`, that fits a row of `width` outputs: narrow
// maps (7, 14 wide) then cover a row with two overlapping vectors instead of computing lanes
// past its end.
inline int depthwise_x_vector(int lanes, int width) {
    int v = lanes;
    while (v > 1 && v > width) v /= 2;
    return v;
}

inline void schedule_conv2d_depthwise(Conv2d &a, const Conv2dShape &s, const Halide::Target &target, int vectors_x,
                                      int rows, int task_rows, int task_planes) {
    using namespace Halide;
    const int x_vector = depthwise_x_vector(target.natural_vector_size<float>(), s.out_w);
    const int x_tile = s.out_w >= vectors_x * x_vector ? vectors_x * x_vector : x_vector;
    const int strip = std::min(task_rows, s.out_h);
    const int row_tile = std::min(rows, strip);
    // Channels, not fused planes, are grouped: a fused index would hide from bounds inference
    // that each step reads one channel.
    const int channels = std::min(task_planes, s.out_channels);
    Var xo{"xo"}, xi{"xi"}, ys{"ys"}, yt{"yt"}, yo{"yo"}, yi{"yi"}, co{"co"}, ci{"ci"}, task{"task"};
    a.output.split(a.y, ys, yt, strip, TailStrategy::ShiftInwards)
        .split(yt, yo, yi, row_tile, TailStrategy::ShiftInwards)
        .split(a.x, xo, xi, x_tile, TailStrategy::ShiftInwards)
        .split(a.c, co, ci, channels, TailStrategy::ShiftInwards)
        .reorder(xi, yi, xo, yo, ys, ci, co, a.n)
        .fuse(co, a.n, task)
        .parallel(task)
        .vectorize(xi, x_vector)
        .unroll(yi);
    if (s.pad_h > 0 || s.pad_w > 0) {
        const std::vector<Var> xycn = a.padded.args();
        a.padded.compute_at(a.output, ys).vectorize(xycn[0], x_vector, TailStrategy::RoundUp);
    }
    // The tile's accumulators live in registers; with the rows unrolled, rows of the tile that
    // read the same input row share its loads.
    a.conv.compute_at(a.output, xo).store_in(MemoryType::Register).vectorize(a.x, x_vector).unroll(a.x).unroll(a.y);
    a.conv.update()
        .reorder(a.x, a.y, a.r.x, a.r.y, a.r.z)
        .vectorize(a.x, x_vector)
        .unroll(a.x)
        .unroll(a.y)
        .unroll(a.r.x)
        .unroll(a.r.y);
}

}  // namespace cortado::schedules::cpu
