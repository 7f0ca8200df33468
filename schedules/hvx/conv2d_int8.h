// Hexagon HVX schedule of the int8 convolution (generators/conv2d_int8.h): the whole layer
// offloaded to the DSP. Output channels fill the lanes of the 32-bit accumulators (32 to a
// 128-byte vector), a tile of `cols` channels by `rows` pixels; each reduction step's four byte
// products per lane are one atomic, vectorised reduction over the word, which Halide matches to
// `vrmpy` (unsigned activations by signed weights, four products summed into each word). The
// quantized input is staged on the DSP first, in parallel over rows. Compile-verified only.
#pragma once

#include <algorithm>

#include "generators/conv2d_int8.h"
#include "schedules/conv2d_int8_tile.h"
#include "schedules/hvx/offload.h"

namespace cortado::schedules::hvx {

inline void schedule_conv2d_int8(Conv2dInt8 &a, const ops::Conv2dShape &s, int pixels) {
    using namespace Halide;
    pixels = std::min(pixels, s.out_w * s.out_h);
    Var rows{"rows"};
    // Vectors of 32 bytes of one channel: Halide 21 cannot lower `round` on wider float vectors
    // for HVX. RoundUp: a staged row may be shorter than a vector; the extra bytes are computed
    // from clamped reads and never used.
    a.quantized.compute_root()
        .hexagon()
        .bound(a.within, 0, ops::kInt8ChannelsPerWord)
        .reorder(a.within, a.x, a.y, a.word, a.n)
        .fuse(a.y, a.word, rows)
        .fuse(rows, a.n, rows)
        .parallel(rows)
        .unroll(a.within)
        .vectorize(a.x, kFloatLanes, TailStrategy::RoundUp);

    // The epilogue runs a channel at a time: the output's channels are a plane apart, and Halide 21
    // fails (a Select of mismatched lanes) vectorising it across them with a partial last panel.
    Var qo{"qo"}, qi{"qi"}, co{"co"}, ci{"ci"}, task{"task"};
    a.output.hexagon()
        .split(a.q, qo, qi, pixels, TailStrategy::ShiftInwards)
        .split(a.c, co, ci, a.width, TailStrategy::GuardWithIf)
        .reorder(ci, qi, qo, co, a.n)
        .fuse(co, a.n, task)
        .parallel(task)
        .unroll(qi);
    schedule_int8_register_tile(a, a.output, qo, kFloatLanes);
}

}  // namespace cortado::schedules::hvx
