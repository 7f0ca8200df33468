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

}  // namespace cortado::schedules::cpu
