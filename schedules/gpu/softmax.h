// GPU schedule for softmax (generators/softmax.h), a few small kernels (one per stage of each
// partial) and no shared memory:
// - the partial maxima and the partial sums of the exponentials: a block per slice, a thread
//   per lane, adjacent lanes reading adjacent channels;
// - the maximum and the sum over the lanes: a thread per slice;
// - the output: a thread per channel and slice.
// A slice's channels are spread over threads because one thread running a classifier's 1000
// classes serially costs as much as a small network's convolutions (docs/PERFORMANCE.md).
#pragma once

#include "generators/softmax.h"
#include "schedules/gpu/fitting.h"

namespace cortado::schedules::gpu {

inline void schedule_softmax(Softmax &a, const SoftmaxShape &s, const Halide::Target &) {
    using namespace Halide;
    Var slice{"slice"}, so{"so"}, si{"si"}, co{"co"}, ci{"ci"};
    const int slices = s.inner * s.outer;
    // Every stage of `f` over the slices: with lanes, a block per slice and a thread per lane;
    // without, a thread per slice.
    const auto per_slice = [&](Func f, bool lanes) {
        f.compute_root();
        for (int stage = 0; stage <= f.num_update_definitions(); stage++) {
            Stage st = stage == 0 ? Stage(f) : Stage(f.update(stage - 1));
            st.fuse(a.x, a.o, slice);
            if (lanes) st.gpu_blocks(slice).gpu_threads(a.lane);
            else st.split(slice, so, si, fitting(64, slices), TailStrategy::GuardWithIf).gpu_blocks(so).gpu_threads(si);
        }
    };
    per_slice(a.partial_max, a.lanes > 1);
    per_slice(a.max_value, false);
    if (a.sum_lanes > 1) per_slice(a.partial_total, true);
    per_slice(a.total, false);
    a.output.reorder(a.c, a.x, a.o)
        .split(a.c, co, ci, fitting(128, s.channels), TailStrategy::GuardWithIf)
        .fuse(a.x, a.o, slice)
        .reorder(ci, co, slice)
        .gpu_blocks(slice, co)  // slices (every pixel of a map) may pass the grid's 65535 in y
        .gpu_threads(ci);
}

}  // namespace cortado::schedules::gpu
