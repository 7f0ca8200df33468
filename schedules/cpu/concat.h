// CPU schedule (x86 and ARM, in the target's vector width) for concat: a vectorised copy per input,
// parallel over outer slices. Pure data movement; bounded by memory bandwidth.
#pragma once

#include "generators/concat.h"

namespace cortado::schedules::cpu {

inline void schedule_concat(Concat &a, const ConcatShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    for (size_t i = 0; i < a.slices.size(); i++) {
        RDom &r = a.slices[i];
        Stage update = a.output.update(static_cast<int>(i));
        // Each input writes a disjoint slice, so splitting its loops cannot race.
        update.allow_race_conditions().parallel(r.z);
        if (s.inner >= vec) update.vectorize(r.x, vec, TailStrategy::GuardWithIf);
        else if (s.outer == 1) update.parallel(r.y, 8);
    }
}

}  // namespace cortado::schedules::cpu
