// Hexagon HVX schedule for the transposed convolution: offloaded whole to the DSP, parallel over
// output channel planes, 32 output x per vector accumulating their taps. Compile-verified only.
#pragma once

#include "generators/deconv2d.h"
#include "schedules/hvx/offload.h"

namespace cortado::schedules::hvx {

inline void schedule_deconv2d(Deconv2d &a, const Deconv2dShape &s, const Halide::Target &) {
    using namespace Halide;
    Var plane{"plane"}, xo{"xo"}, xi{"xi"};
    a.output.hexagon().fuse(a.c, a.n, plane).parallel(plane);
    if (s.out_w >= kFloatLanes) {
        a.output.split(a.x, xo, xi, kFloatLanes, TailStrategy::GuardWithIf).vectorize(xi);
        a.sum.compute_at(a.output, xo).vectorize(a.x);
        a.sum.update().vectorize(a.x);
    } else {
        a.sum.compute_at(a.output, a.x);
    }
}

}  // namespace cortado::schedules::hvx
