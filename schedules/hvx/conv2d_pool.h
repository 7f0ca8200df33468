// Hexagon HVX schedule for the fused convolution and MAX pooling (hvx_conv_pool_rows; algorithm:
// generators/conv2d_pool.h): offloaded to the DSP, the CPU families' plan (cpu/conv2d_pool.h) in
// HVX's vectors: tasks of 4 pooled rows by 4 channels across the DSP's threads, each computing
// the convolution rows its windows read with the register tile of hvx/conv2d.h into a strip,
// then pooling the strip. Compile-verified only.
#pragma once

#include <algorithm>

#include "generators/conv2d_pool.h"
#include "schedules/hvx/offload.h"

namespace cortado::schedules::hvx {

inline void schedule_conv2d_pool(Conv2dPool &a, const Conv2dPoolShape &s, const Halide::Target &) {
    using namespace Halide;
    const Conv2dShape &cs = s.conv;
    const int channel_block = std::min(cs.out_channels, 4), rows = std::min(s.pool_out_h, 4);
    const int columns = std::min(cs.out_w, (s.pool_out_w - 1) * s.pool_stride_w - s.pool_pad_w + s.pool_kernel_w);
    const bool vector_x = columns >= kFloatLanes;
    const TailStrategy channel_tail =
        cs.out_channels % channel_block == 0 ? TailStrategy::RoundUp : TailStrategy::ShiftInwards;
    Var yo{"yo"}, yi{"yi"}, co{"co"}, ci{"ci"}, task{"task"}, xo{"xo"}, xi{"xi"}, cto{"cto"}, cti{"cti"};
    if (cs.pad_h > 0 || cs.pad_w > 0) {
        a.conv.padded.compute_root().hexagon().parallel(a.c);
        vectorize_if_long(a.conv.padded, a.x, cs.in_w + 2 * cs.pad_w);
    }
    a.output.hexagon()
        .split(a.y, yo, yi, rows, TailStrategy::ShiftInwards)
        .split(a.c, co, ci, channel_block, channel_tail)
        .reorder(a.x, ci, yi, yo, co, a.n)
        .fuse(yo, co, task)
        .fuse(task, a.n, task)
        .parallel(task);
    vectorize_if_long(a.output, a.x, s.pool_out_w);
    a.column_max.compute_at(a.output, ci);
    vectorize_if_long(a.column_max, a.x, columns);
    Func strip = a.conv.output;
    strip.compute_at(a.output, task)
        .split(a.x, xo, xi, vector_x ? kFloatLanes : columns, TailStrategy::ShiftInwards)
        .split(a.c, cto, cti, channel_block, channel_tail)
        .reorder(xi, cti, xo, a.y, cto, a.n);
    a.conv.conv.compute_at(strip, xo).unroll(a.c);
    a.conv.conv.update().reorder(a.x, a.c, a.conv.r.x, a.conv.r.y, a.conv.r.z, a.y, a.n).unroll(a.c);
    if (vector_x) {
        strip.vectorize(xi);
        a.conv.conv.vectorize(a.x);
        a.conv.conv.update().vectorize(a.x);
    }
}

}  // namespace cortado::schedules::hvx
