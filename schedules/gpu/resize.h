// GPU schedule for Resize: one thread per output element. Memory-bound.
#pragma once

#include "generators/resize.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_resize(Resize &a, const ResizeShape &s, const Halide::Target &) {
    tile_2d(a.output, a.x, a.y, s.out_w, s.out_h, a.c, a.n);
}

}  // namespace cortado::schedules::gpu
