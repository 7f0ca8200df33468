// x86 schedule for conv2d: direct convolution with a register tile of 6 output channels (8 with
// AVX-512) x two vectors of output x, the reduction over (kx, ky, ci) outside the tile, parallel
// over (channel block, image). The padded input is materialised once so inner loads are
// unguarded. Measured: 138 GFLOP/s on GoogLeNet conv2/3x3 (64->192, 3x3, 56x56, batch 1) on the
// 2-core AMD EPYC (AVX2) development machine, `cortado run` median of 20; the fraction of the
// roofline is for `cortado bench` (issue 3) to record.
#pragma once

#include <algorithm>

#include "generators/conv2d.h"

namespace cortado::schedules::x86 {

inline void schedule_conv2d(Conv2d &a, const Conv2dShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    // Register tile: vectors_x x channel_block accumulators, plus the input vectors and one
    // broadcast weight, must fit the register file (16 vector registers below AVX-512, 32 with).
    const bool wide_register_file = target.has_feature(Target::AVX512);
    const int kChannelBlock = std::min(s.out_channels, wide_register_file ? 8 : 6);
    // Narrow outputs (7x7, 13x13 ...) take one whole row as the tile: a wider tile would make the
    // convolution read past the right edge of an unpadded input.
    const int x_tile = s.out_w >= 2 * vec ? 2 * vec : std::min(vec, s.out_w);
    const int x_vector = std::min(vec, x_tile);
    Var xo{"xo"}, xi{"xi"}, co{"co"}, ci{"ci"}, block{"block"};

    if (s.pad_h > 0 || s.pad_w > 0) {
        a.padded.compute_root().parallel(a.n).parallel(a.c).vectorize(a.x, vec);
    }
    a.output.split(a.x, xo, xi, x_tile, TailStrategy::ShiftInwards)
        .split(a.c, co, ci, kChannelBlock,
               s.out_channels % kChannelBlock == 0 ? TailStrategy::RoundUp
                                                   : TailStrategy::ShiftInwards)
        .reorder(xi, ci, xo, a.y, co, a.n)
        .fuse(co, a.n, block)
        .parallel(block)
        .vectorize(xi, x_vector);
    // The tile's accumulators live in registers: every loop over the tile is unrolled or
    // vectorised, so the whole reduction runs without touching memory for partial sums.
    a.conv.compute_at(a.output, xo)
        .store_in(MemoryType::Register)
        .vectorize(a.x, x_vector)
        .unroll(a.x)
        .unroll(a.c);
    a.conv.update()
        .reorder(a.x, a.c, a.r.x, a.r.y, a.r.z, a.y, a.n)
        .vectorize(a.x, x_vector)
        .unroll(a.x)
        .unroll(a.c);
}

}  // namespace cortado::schedules::x86
