// GPU schedule for pooling. An ordinary window: one thread per output element, the running MAX
// or sum in registers. Memory-bound.
#pragma once

#include "generators/pooling.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

// An average over a whole plane (global pooling, squeeze-and-excitation's squeeze) has one output
// per plane: a thread per output would give each block one thread, summing the plane alone.
inline bool averages_whole_planes(const PoolingShape &s) { return s.average && s.out_w == 1 && s.out_h == 1; }

// A block per plane instead: its threads (up to 32 along the row by 8 rows) each sum a strided
// share of the window, so that a warp reads consecutive cells of a row (the window's sum split
// by rfactor), and one thread adds the block's partial sums from shared memory.
inline void schedule_plane_average(Pooling &a, const PoolingShape &s) {
    using namespace Halide;
    Var plane{"plane"}, u{"u"}, v{"v"};
    RVar rxo{"rxo"}, rxi{"rxi"}, ryo{"ryo"}, ryi{"ryi"};
    a.output.fuse(a.c, a.n, plane).gpu_blocks(plane);
    a.window_sum.compute_at(a.output, plane);
    Func partial = a.window_sum.update()
                       .split(a.r.x, rxo, rxi, fitting(32, s.kernel_w))
                       .split(a.r.y, ryo, ryi, fitting(8, s.kernel_h))
                       .rfactor({{rxi, u}, {ryi, v}});
    partial.compute_at(a.output, plane).gpu_threads(u, v);
    partial.update().gpu_threads(u, v);
}

inline void schedule_pooling(Pooling &a, const PoolingShape &s, const Halide::Target &) {
    if (averages_whole_planes(s)) return schedule_plane_average(a, s);
    const Halide::Var thread = tile_2d(a.output, a.x, a.y, s.out_w, s.out_h, a.c, a.n);
    Halide::Func window = a.window_reduction(s);
    window.compute_at(a.output, thread).store_in(Halide::MemoryType::Register);
}

}  // namespace cortado::schedules::gpu
