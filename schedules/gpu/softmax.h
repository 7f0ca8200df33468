// GPU schedule for softmax: one thread per (x, outer) slice runs the three passes over the
// channels serially. Softmax is a tiny share of any network's time.
#pragma once

#include "generators/softmax.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_softmax(Softmax &a, const SoftmaxShape &s, const Halide::Target &) {
    using namespace Halide;
    Var xo{"xo"}, xi{"xi"};
    a.output.reorder(a.c, a.x, a.o)
        .split(a.x, xo, xi, fitting(64, s.inner), TailStrategy::GuardWithIf)
        .gpu_blocks(xo, a.o)
        .gpu_threads(xi);
    a.partial_max.compute_at(a.output, xi);
    a.max_value.compute_at(a.output, xi);
    a.total.compute_at(a.output, xi);
}

}  // namespace cortado::schedules::gpu
