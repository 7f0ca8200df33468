// CPU schedule (x86 and ARM, in the target's vector width) for LRN: squares computed per channel
// plane, window sums vectorised over x, parallel over images and rows. Memory-bound; figures from
// `cortado bench` (issue 3).
#pragma once

#include "generators/lrn.h"

namespace cortado::schedules::cpu {

inline void schedule_lrn(LRN &a, const LRNShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    a.output.reorder(a.x, a.y, a.c, a.n).parallel(a.n).parallel(a.c);
    if (s.w >= vec) a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
    a.window_sum.compute_at(a.output, a.c);
    if (s.w >= vec) a.window_sum.vectorize(a.x, vec, TailStrategy::ShiftInwards);
}

}  // namespace cortado::schedules::cpu
