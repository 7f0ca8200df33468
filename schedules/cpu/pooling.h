// CPU schedule (x86 and ARM, in the target's vector width) for pooling: vectorised over output x,
// parallel over channel planes. Memory-bound; fraction of bandwidth recorded by `cortado bench`
// (issue 3).
#pragma once

#include "generators/pooling.h"

namespace cortado::schedules::cpu {

inline void schedule_pooling(Pooling &a, const PoolingShape &s, const Halide::Target &target) {
    using namespace Halide;
    // Rows narrower than a full vector (AlexNet's 13-wide pool2 on AVX-512) take half or quarter
    // vectors rather than scalar code.
    int vec = target.natural_vector_size<float>();
    while (vec > 4 && s.out_w < vec) vec /= 2;
    const bool vectorized = s.out_w >= vec;
    Var plane{"plane"};
    a.output.fuse(a.c, a.n, plane).parallel(plane);
    if (vectorized) a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
    if (!s.average) {
        a.window_max.compute_at(a.output, vectorized ? a.x : a.y);
        if (vectorized) a.window_max.vectorize(a.x).update().vectorize(a.x);
    }
}

}  // namespace cortado::schedules::cpu
