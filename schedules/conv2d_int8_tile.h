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

}  // namespace cortado::schedules
