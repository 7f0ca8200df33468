// CPU schedule (x86 and ARM, in the target's vector width) for Resize: vectorised over output x
// (a gather of input columns), parallel over channel planes. Memory-bound.
#pragma once

#include "generators/resize.h"

namespace cortado::schedules::cpu {

inline void schedule_resize(Resize &a, const ResizeShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    Var plane{"plane"};
    a.output.fuse(a.c, a.n, plane).parallel(plane, s.channels * s.batch >= 64 ? 8 : 1);
    if (s.out_w >= vec) a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
}

}  // namespace cortado::schedules::cpu
