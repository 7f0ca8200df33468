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

// The output (q, c, n, ...) of a register-tiled convolution whose thread owns one panel of `width`
// channels (unrolled) by `rows` consecutive pixels of `pixels` (unrolled): `threads_q` threads
// along the pixels innermost, so a warp shares its weight loads, by `threads_c` along the panels;
// blocks over pixel tiles and panels x images. Returns the thread loop the register tile is
// computed at.
inline Halide::Var tile_panels_by_threads(Halide::Func output, Halide::Var q, Halide::Var c, Halide::Var n, int width,
                                          int rows, int pixels, int threads_q, int threads_c) {
    using namespace Halide;
    Var qo{"qo"}, qi{"qi"}, qt{"qt"}, qb{"qb"}, co{"co"}, ci{"ci"}, ct{"ct"}, cb{"cb"};
    output.split(c, co, ci, width, TailStrategy::GuardWithIf)
        .split(q, qo, qi, fitting(rows, pixels), TailStrategy::ShiftInwards)
        .split(qo, qb, qt, threads_q, TailStrategy::GuardWithIf)
        .split(co, cb, ct, threads_c, TailStrategy::GuardWithIf)
        .reorder(ci, qi, qt, ct, qb, cb, n)
        .fuse(cb, n, cb)
        .gpu_blocks(qb, cb)
        .gpu_threads(qt, ct)
        .unroll(ci)
        .unroll(qi);
    return qt;
}

}  // namespace cortado::schedules::gpu
