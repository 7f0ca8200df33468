// CPU schedule (x86 and ARM, in the target's vector width) for pooling: vectorised over output x,
// parallel over channel planes. Memory-bound; fraction of bandwidth recorded by `cortado bench`
// (issue 3).
#pragma once

#include "generators/pooling.h"

namespace cortado::schedules::cpu {

inline void schedule_pooling(Pooling &a, const PoolingShape &s, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    Var plane{"plane"};
    a.output.fuse(a.c, a.n, plane).parallel(plane);
    if (s.out_w >= vec) a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
    if (!s.average) {
        a.window_max.compute_at(a.output, s.out_w >= vec ? a.x : a.y);
        if (s.out_w >= vec) a.window_max.vectorize(a.x).update().vectorize(a.x);
    }
}

}  // namespace cortado::schedules::cpu
