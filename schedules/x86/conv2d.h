// x86 schedule for conv2d: direct convolution, register tile of `kChannelBlock` output channels
// x one or two vectors of output x, reduction over (kx, ky, ci) outside the tile, parallel over
// (channel block, image). The padded input is materialised once so inner loads are unguarded.
// Roofline: first baseline; fraction of peak is recorded by `cortado bench` (issue 3).
#pragma once

#include <algorithm>

#include "generators/conv2d.h"

namespace cortado::schedules::x86 {

inline void schedule_conv2d(Conv2d &a, const Conv2dShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    const int kChannelBlock = s.out_channels >= 8 ? 8 : s.out_channels;
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
    a.conv.compute_at(a.output, xo).vectorize(a.x, x_vector).unroll(a.c);
    a.conv.update()
        .reorder(a.x, a.c, a.r.x, a.r.y, a.r.z, a.y, a.n)
        .vectorize(a.x, x_vector)
        .unroll(a.c);
}

}  // namespace cortado::schedules::x86
