// The CPU schedule of the int8 convolution (generators/conv2d_int8.h): the channel-lanes
// schedule's tiles and tasks (conv2d_channel_lanes.h, split_channel_lanes_output) on 32-bit sums. The quantized input is
// staged once per call, in parallel over its words of channels. Each reduction step's four
// byte products per lane are one atomic, vectorised reduction over the word, which Halide turns
// into vpdpbusd on x86 targets with AVX512-VNNI (avx512_zen4 and later) and into wider
// multiplies and pairwise adds elsewhere.
#pragma once

#include <algorithm>
#include <vector>

#include "generators/conv2d_int8.h"
#include "schedules/conv2d_int8_tile.h"
#include "schedules/cpu/conv2d_channel_lanes.h"

namespace cortado::schedules::cpu {

inline void schedule_conv2d_int8(Conv2dInt8 &a, const ops::Conv2dShape &s, const Halide::Target &target, int pixels,
                                 int task_tiles, bool pixel_stores, bool pair_sums) {
    using namespace Halide;
    const int lanes = target.natural_vector_size<int32_t>();
    pixels = std::min(pixels, s.out_w * s.out_h);
    const Var qo = split_channel_lanes_output(a.output, a.q, a.c, a.n, a.width, pixels, task_tiles, pixel_stores);

    // Each row of the staged input is a run of (four channels, x) bytes: the four channels'
    // rows quantized a vector of x at a time and interleaved into one dense store.
    Var rows{"rows"};
    a.quantized.compute_root()
        .bound(a.within, 0, ops::kInt8ChannelsPerWord)
        .reorder(a.within, a.x, a.y, a.word, a.n)
        .fuse(a.y, a.word, rows)
        .fuse(rows, a.n, rows)
        .parallel(rows)
        .vectorize(a.within)
        .vectorize(a.x, lanes);

    if (pair_sums) schedule_int8_pair_sums(a, a.output, qo, lanes);
    else schedule_int8_register_tile(a, a.output, qo, lanes);
}

}  // namespace cortado::schedules::cpu
