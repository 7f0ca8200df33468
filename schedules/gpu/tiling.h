// Helpers shared by the GPU schedules (CUDA and OpenCL alike: only gpu_blocks/gpu_threads,
// shared memory and registers are used, no vendor-specific directive).
#pragma once

#include <algorithm>

#include "Halide.h"
#include "schedules/gpu/fitting.h"

namespace cortado::schedules::gpu {

// One thread per output element, blocks of up to 32 x 8 threads over the first two loops,
// the remaining two loops fused into a third block dimension. Partial tiles are guarded.
// Returns the innermost thread loop, where per-element producers are computed.
inline Halide::Var tile_2d(Halide::Func f, Halide::Var x, Halide::Var y, int extent_x, int extent_y, Halide::Var rest_a,
                           Halide::Var rest_b) {
    using namespace Halide;
    Var xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"}, rest{"rest"};
    f.split(x, xo, xi, fitting(32, extent_x), TailStrategy::GuardWithIf)
        .split(y, yo, yi, fitting(8, extent_y), TailStrategy::GuardWithIf)
        .reorder(xi, yi, xo, yo, rest_a, rest_b)
        .fuse(rest_a, rest_b, rest)
        .gpu_blocks(xo, yo, rest)
        .gpu_threads(xi, yi);
    return xi;
}

}  // namespace cortado::schedules::gpu
