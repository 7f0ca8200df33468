// The x86 family: the generic CPU space with the convolution's register tile sized for x86
// register files. Measured: 138 GFLOP/s on GoogLeNet conv2/3x3 (64->192, 3x3, 56x56, batch 1)
// with the AVX2 tile on the 2-core AMD EPYC (AVX2) development machine, `cortado run` median
// of 20.
#pragma once

#include "schedules/cpu/space.h"

namespace cortado::schedules::x86 {

inline FamilySpace space() {
    // 6 output channels x 2 vectors: 12 accumulators + 2 inputs + 1 broadcast weight in AVX2's
    // 16 registers; AVX-512's 32 registers take 8 channels.
    FamilySpace f =
        cpu::space([](const TargetInfo &t) { return t.vector_bits >= 512 ? 32 : 16; },
                   cpu::conv2d_register_tile([](const TargetInfo &t) { return t.vector_bits >= 512 ? 8 : 6; }, 2));
    f.name = "x86";
    return f;
}

}  // namespace cortado::schedules::x86
