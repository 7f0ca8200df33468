// CPU schedule (x86 and ARM, in the target's vector width) for the transposed convolution: a
// vector of output x accumulates all its taps in registers; parallel over output channel planes.
#pragma once

#include "generators/deconv2d.h"

namespace cortado::schedules::cpu {

inline void schedule_deconv2d(Deconv2d &a, const Deconv2dShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    Var plane{"plane"}, xo{"xo"}, xi{"xi"};
    a.output.fuse(a.c, a.n, plane).parallel(plane);
    if (s.out_w >= vec) {
        a.output.split(a.x, xo, xi, vec, TailStrategy::GuardWithIf).vectorize(xi);
        a.sum.compute_at(a.output, xo).vectorize(a.x);
        a.sum.update().vectorize(a.x);
    } else {
        a.sum.compute_at(a.output, a.x);
    }
}

}  // namespace cortado::schedules::cpu
