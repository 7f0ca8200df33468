// CPU schedule (x86 and ARM, in the target's vector width) for LRN: each output vector sums its
// window of squares in registers, parallel over images (over channels for a single image, where
// the image loop has one iteration). Memory-bound; figures in docs/PERFORMANCE.md.
#pragma once

#include "generators/lrn.h"
#include "schedules/cpu/row_vector.h"

namespace cortado::schedules::cpu {

inline void schedule_lrn(LRN &a, const LRNShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = row_vector(s.w, target);
    a.output.reorder(a.x, a.y, a.c, a.n).parallel(a.n).parallel(a.c);
    if (s.w >= vec) {
        a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
        // The window's sum stays in registers: no plane of sums is written and read back.
        a.window_sum.compute_at(a.output, a.x).vectorize(a.x);
        a.window_sum.update().vectorize(a.x);
    } else {
        a.window_sum.compute_at(a.output, a.c);
    }
}

}  // namespace cortado::schedules::cpu
