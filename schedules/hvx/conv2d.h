// Hexagon HVX schedule for conv2d: the whole convolution offloaded to the DSP, parallel over
// (channel block, image) across the DSP's hardware threads, a register tile of 4 output channels
// x one 32-float vector of x with the reduction outside it. The padded input is materialised on
// the DSP too, so the inner loads are unguarded. Compile-verified only.
#pragma once

#include <algorithm>

#include "generators/conv2d.h"
#include "schedules/hvx/offload.h"

namespace cortado::schedules::hvx {

inline void schedule_conv2d(Conv2d &a, const Conv2dShape &s, const Halide::Target &) {
    using namespace Halide;
    const int channel_block = std::min(s.out_channels, 4);
    const bool vector_x = s.out_w >= kFloatLanes;
    Var xo{"xo"}, xi{"xi"}, co{"co"}, ci{"ci"}, block{"block"};
    if (s.pad_h > 0 || s.pad_w > 0) {
        a.padded.compute_root().hexagon().parallel(a.c);
        vectorize_if_long(a.padded, a.x, s.in_w + 2 * s.pad_w);
    }
    a.output.hexagon()
        .split(a.x, xo, xi, vector_x ? kFloatLanes : s.out_w, TailStrategy::ShiftInwards)
        .split(a.c, co, ci, channel_block,
               s.out_channels % channel_block == 0 ? TailStrategy::RoundUp : TailStrategy::ShiftInwards)
        .reorder(xi, ci, xo, a.y, co, a.n)
        .fuse(co, a.n, block)
        .parallel(block);
    if (vector_x) a.output.vectorize(xi);
    a.conv.compute_at(a.output, xo).unroll(a.c);
    a.conv.update().reorder(a.x, a.c, a.r.x, a.r.y, a.r.z, a.y, a.n).unroll(a.c);
    if (vector_x) {
        a.conv.vectorize(a.x);
        a.conv.update().vectorize(a.x);
    }
}

}  // namespace cortado::schedules::hvx
