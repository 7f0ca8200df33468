// GPU schedules for the element-wise ops: one thread per element, 256 per block.
#pragma once

#include "generators/elementwise.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_flat(Halide::Func output, Halide::Var i, int count, const Halide::Target &) {
    using namespace Halide;
    Var io{"io"}, ii{"ii"};
    output.gpu_tile(i, io, ii, fitting(256, count), TailStrategy::GuardWithIf);
}

inline void schedule_channel_affine(ChannelAffine &a, int inner, int channels, int, const Halide::Target &) {
    using namespace Halide;
    Var xo{"xo"}, xi{"xi"}, co{"co"}, ci{"ci"};
    a.output.split(a.x, xo, xi, fitting(32, inner), TailStrategy::GuardWithIf)
        .split(a.c, co, ci, fitting(8, channels), TailStrategy::GuardWithIf)
        .reorder(xi, ci, xo, co, a.o)
        .gpu_blocks(xo, co, a.o)
        .gpu_threads(xi, ci);
}

}  // namespace cortado::schedules::gpu
