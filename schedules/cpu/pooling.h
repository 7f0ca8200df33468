// CPU schedule (x86 and ARM, in the target's vector width) for pooling: vectorised over output x,
// parallel over channel planes. Memory-bound.
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
    // Input rows are staged with their fill once per plane, sliding down the rows as the window
    // does: the window's taps are then plain (strided) vector loads, where reading through the
    // bounds test gathers every vector that touches the right edge.
    a.padded.compute_at(a.output, a.y).store_at(a.output, plane);
    const int padded_w = (s.out_w - 1) * s.stride_w + s.kernel_w;
    if (padded_w >= vec) a.padded.vectorize(a.x, vec, TailStrategy::ShiftInwards);
    const bool unrolled = s.kernel_w * s.kernel_h <= 25;
    if (!s.average) {
        a.window_max.compute_at(a.output, vectorized ? a.x : a.y);
        if (vectorized) a.window_max.vectorize(a.x);
        Stage taps = a.window_max.update();
        if (vectorized) taps.vectorize(a.x);
        if (unrolled) taps.unroll(a.r.x).unroll(a.r.y);
    }
}

}  // namespace cortado::schedules::cpu
