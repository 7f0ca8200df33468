// CPU schedule (x86 and ARM, in the target's vector width) for Pad: vectorised over output x,
// parallel over channel planes. Memory-bound.
#pragma once

#include "generators/pad.h"

namespace cortado::schedules::cpu {

inline void schedule_pad(Pad &a, const PadShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    Var plane{"plane"};
    a.output.fuse(a.c, a.n, plane).parallel(plane, s.channels * s.batch >= 64 ? 8 : 1);
    if (s.out_w() >= vec) a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
}

}  // namespace cortado::schedules::cpu
