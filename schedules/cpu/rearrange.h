// CPU schedule (x86 and ARM, in the target's vector width) for rearrange: the innermost output
// axis vectorised (a gather when its stride is not 1), the outer axes fused and run in parallel
// chunks large enough to amortise the thread pool. Pure data movement.
#pragma once

#include "generators/rearrange.h"

namespace cortado::schedules::cpu {

inline void schedule_rearrange(Rearrange &a, const RearrangeShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    Var outer = a.axes[1];
    for (int d = 2; d < ops::kRearrangeAxes; d++) {
        Var fused{"outer" + std::to_string(d)};
        a.output.fuse(outer, a.axes[d], fused);
        outer = fused;
    }
    int64_t rows = 1;
    for (int d = 1; d < ops::kRearrangeAxes; d++) rows *= s.extents[d];
    const int64_t per_row = s.extents[0];
    if (rows * per_row >= (1 << 15) && rows >= 2) {
        const int rows_per_task = static_cast<int>(std::max<int64_t>(1, (1 << 14) / per_row));
        a.output.parallel(outer, rows_per_task, TailStrategy::GuardWithIf);
    }
    if (per_row >= vec) a.output.vectorize(a.axes[0], vec, TailStrategy::GuardWithIf);
}

}  // namespace cortado::schedules::cpu
