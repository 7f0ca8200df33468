// Hexagon HVX schedule for the transposed convolution: offloaded whole to the DSP, parallel over
// output channel planes, each output element summing its taps in a register (Halide 21's Hexagon
// backend fails on the vectorised form of this gather). Compile-verified only.
#pragma once

#include "generators/deconv2d.h"
#include "schedules/hvx/offload.h"

namespace cortado::schedules::hvx {

inline void schedule_deconv2d(Deconv2d &a, const Deconv2dShape &, const Halide::Target &) {
    Halide::Var plane{"plane"};
    a.output.hexagon().fuse(a.c, a.n, plane).parallel(plane);
    a.sum.compute_at(a.output, a.x);
}

}  // namespace cortado::schedules::hvx
