// GPU schedule for rearrange: the output's axes fused into one, one thread per element, 256 per
// block; consecutive threads write consecutive outputs.
#pragma once

#include "generators/rearrange.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_rearrange(Rearrange &a, const RearrangeShape &s, const Halide::Target &) {
    using namespace Halide;
    Var all = a.axes[0];
    int64_t count = s.extents[0];
    for (int d = 1; d < ops::kRearrangeAxes; d++) {
        Var fused{"all" + std::to_string(d)};
        a.output.fuse(all, a.axes[d], fused);
        all = fused;
        count *= s.extents[d];
    }
    Var block{"block"}, thread{"thread"};
    a.output.gpu_tile(all, block, thread, fitting(256, static_cast<int>(count)), TailStrategy::GuardWithIf);
}

}  // namespace cortado::schedules::gpu
