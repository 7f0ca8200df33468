// GPU schedule for concat: each input's copy is its own kernel, one thread per element.
#pragma once

#include "generators/concat.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_concat(Concat &a, const ConcatShape &s, const Halide::Target &) {
    using namespace Halide;
    for (size_t i = 0; i < a.slices.size(); i++) {
        RDom &r = a.slices[i];
        RVar xo{"xo" + std::to_string(i)}, xi{"xi" + std::to_string(i)};
        // Each input writes a disjoint slice of the output, so the loops may run in parallel.
        a.output.update(static_cast<int>(i))
            .allow_race_conditions()
            .split(r.x, xo, xi, fitting(64, s.inner), TailStrategy::GuardWithIf)
            .gpu_blocks(xo, r.y, r.z)
            .gpu_threads(xi);
    }
}

}  // namespace cortado::schedules::gpu
