// CPU schedule (x86 and ARM, in the target's vector width) for softmax: per outer slice,
// exponentials computed once and stored, vectorised along x when the inner extent allows, else
// along channels (the partial maxima along their lanes).
#pragma once

#include "generators/softmax.h"

namespace cortado::schedules::cpu {

inline void schedule_softmax(Softmax &a, const SoftmaxShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    a.output.parallel(a.o);
    a.partial_max.compute_at(a.output, a.o);
    if (a.lanes > 1) a.partial_max.vectorize(a.lane).update().vectorize(a.lane);
    a.max_value.compute_at(a.output, a.o);
    a.exponent.compute_at(a.output, a.o);
    a.total.compute_at(a.output, a.o);
    if (s.inner >= vec) {
        a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
        a.exponent.vectorize(a.x, vec, TailStrategy::ShiftInwards);
    } else if (s.channels >= vec) {
        a.output.reorder(a.c, a.x).vectorize(a.c, vec, TailStrategy::ShiftInwards);
        a.exponent.reorder(a.c, a.x).vectorize(a.c, vec, TailStrategy::ShiftInwards);
    }
}

}  // namespace cortado::schedules::cpu
