// The int8 convolution's register tile (generators/conv2d_int8.h), as every family schedules it:
// computed at one loop of the output, its 32-bit sums in registers (every loop over them unrolled,
// the lanes in vectors of `lanes`, 0 for none), and each reduction step's four byte products one
// atomic, vectorised reduction over the word: the dot-product instruction where the target has one.
#pragma once

#include "generators/conv2d_int8.h"

namespace cortado::schedules {

inline void schedule_int8_register_tile(Conv2dInt8 &a, Halide::Func at, Halide::Var loop, int lanes) {
    using namespace Halide;
    a.tile.compute_at(at, loop).bound(a.lane, 0, a.width).bound_extent(a.panel, 1).store_in(MemoryType::Register);
    a.tile.update().reorder(a.r[0], a.lane, a.q, a.r[1], a.r[2], a.r[3], a.n, a.panel).atomic().vectorize(a.r[0]);
    for (Stage stage : {Stage(a.tile), a.tile.update()}) {
        if (lanes > 0) stage.vectorize(a.lane, lanes);
        stage.unroll(a.lane).unroll(a.q);
    }
}

// The same tile where the word's products are summed as pairs first (Algorithm::PairSums): at
// each vector of lanes of each pixel, its two pairs a vector of 16-bit sums (`lanes` x 2 of
// them, the two halves of each lane side by side: one vpmaddubsw of the broadcast word by the
// lanes' weights on x86), which the 32-bit sums take in pairwise (vpmaddwd by ones).
inline void schedule_int8_pair_sums(Conv2dInt8 &a, Halide::Func at, Halide::Var loop, int lanes) {
    using namespace Halide;
    schedule_int8_register_tile(a, at, loop, lanes);
    a.pairs.compute_at(a.tile, a.lane).store_in(MemoryType::Register);
    a.pairs.reorder(a.half, a.lane).vectorize(a.half, 2).vectorize(a.lane, lanes);
    // Halide cannot prove saturating_add associative. With a pure value of 0 and two products,
    // each within 16 bits, the order does not matter: both orders saturate the pair's sum.
    a.pairs.update()
        .reorder(a.pair_r, a.half, a.lane)
        .atomic(true)
        .vectorize(a.pair_r)
        .vectorize(a.half, 2)
        .vectorize(a.lane, lanes);
}

}  // namespace cortado::schedules
