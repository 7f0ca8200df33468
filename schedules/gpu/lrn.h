// GPU schedule for LRN: one thread per output element, the window sum in registers.
#pragma once

#include "generators/lrn.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_lrn(LRN &a, const LRNShape &s, const Halide::Target &) {
    const Halide::Var thread = tile_2d(a.output, a.x, a.y, s.w, s.h, a.c, a.n);
    a.window_sum.compute_at(a.output, thread).store_in(Halide::MemoryType::Register);
}

}  // namespace cortado::schedules::gpu
