// The direct convolution of every CPU family (cpu_register_tile): a register tile of
// `channel_block` output channels x `vectors_x` vectors of output x, the reduction over
// (kx, ky, ci) outside the tile, parallel over (channel block, image). The padded input is
// materialised once so inner loads are unguarded. Each family's space.h picks the tile that fits its register file.
#pragma once

#include <algorithm>

#include "generators/conv2d.h"
#include "schedules/cpu/padded_input.h"

namespace cortado::schedules::cpu {

// The tile's accumulators live in registers: every loop over the tile is unrolled or
// vectorised, so the whole reduction runs without touching memory for partial sums. `conv` is
// computed at loop `xo` of `tiled`, whose tiles are `x_vector`-wide vectors of x by its channels.
inline void schedule_register_tile_sums(Conv2d &a, Halide::Func tiled, Halide::Var xo, int x_vector) {
    using namespace Halide;
    a.conv.compute_at(tiled, xo).store_in(MemoryType::Register).vectorize(a.x, x_vector).unroll(a.x).unroll(a.c);
    a.conv.update().reorder(a.x, a.c, a.r.x, a.r.y, a.r.z, a.y, a.n).vectorize(a.x, x_vector).unroll(a.x).unroll(a.c);
}

inline void schedule_conv2d_register_tile(Conv2d &a, const Conv2dShape &s, const Halide::Target &target,
                                          int channel_block, int vectors_x) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    channel_block = std::min(s.out_channels, channel_block);
    // Narrow outputs (7x7, 13x13 ...) take a tile of at most one vector, never wider than the row:
    // a wider tile would make the convolution read past the right edge of an unpadded input.
    const int x_tile = s.out_w >= vectors_x * vec ? vectors_x * vec : std::min(vec, s.out_w);
    const int x_vector = std::min(vec, x_tile);
    Var xo{"xo"}, xi{"xi"}, co{"co"}, ci{"ci"}, block{"block"};

    if (s.pad_h > 0 || s.pad_w > 0) schedule_padded_input(a.padded, vec);
    a.output.split(a.x, xo, xi, x_tile, TailStrategy::ShiftInwards)
        .split(a.c, co, ci, channel_block,
               s.out_channels % channel_block == 0 ? TailStrategy::RoundUp : TailStrategy::ShiftInwards)
        .reorder(xi, ci, xo, a.y, co, a.n)
        .fuse(co, a.n, block)
        .parallel(block)
        .vectorize(xi, x_vector);
    schedule_register_tile_sums(a, a.output, xo, x_vector);
}

}  // namespace cortado::schedules::cpu
