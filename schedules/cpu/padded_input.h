// The zero-padded copy of a convolution's input (define_padded in generators/conv2d.h), as every
// CPU convolution schedule materialises it: once per call, so that the inner loops read it
// without bounds checks, in parallel over images and channels, vectorised along x.
#pragma once

#include <vector>

#include "Halide.h"

namespace cortado::schedules::cpu {

inline void schedule_padded_input(Halide::Func padded, int lanes) {
    const std::vector<Halide::Var> xycn = padded.args();
    padded.compute_root().parallel(xycn[3]).parallel(xycn[2]).vectorize(xycn[0], lanes);
}

// The same for a channel-blocked input (define_blocked_padded), which has few blocks at batch
// 1: its rows are the parallel tasks, each a contiguous run.
inline void schedule_blocked_padded_input(Halide::Func padded, int lanes) {
    const std::vector<Halide::Var> vycn = padded.args();
    Halide::Var rows{"rows"};
    padded.compute_root().fuse(vycn[1], vycn[2], rows).fuse(rows, vycn[3], rows).parallel(rows).vectorize(vycn[0], lanes);
}

}  // namespace cortado::schedules::cpu
