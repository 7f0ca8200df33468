// GPU schedule for the transposed convolution: one thread per output element, its taps summed in
// a register; blocks of up to 32 x 8 threads, channels and images fused into the third block
// dimension.
#pragma once

#include "generators/deconv2d.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_deconv2d(Deconv2d &a, const Deconv2dShape &s, const Halide::Target &) {
    const Halide::Var xi = tile_2d(a.output, a.x, a.y, s.out_w, s.out_h, a.c, a.n);
    a.sum.compute_at(a.output, xi);
}

}  // namespace cortado::schedules::gpu
