// GPU schedule for pooling: one thread per output element; MAX keeps its running maximum in
// registers. Memory-bound.
#pragma once

#include "generators/pooling.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_pooling(Pooling &a, const PoolingShape &s, const Halide::Target &) {
    const Halide::Var thread = tile_2d(a.output, a.x, a.y, s.out_w, s.out_h, a.c, a.n);
    if (!s.average) a.window_max.compute_at(a.output, thread).store_in(Halide::MemoryType::Register);
}

}  // namespace cortado::schedules::gpu
