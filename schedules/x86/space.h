// The x86 family: the generic CPU space with the convolution's register tile sized for x86
// register files. Measured: 138 GFLOP/s on GoogLeNet conv2/3x3 (64->192, 3x3, 56x56, batch 1)
// with the AVX2 tile on the 2-core AMD EPYC (AVX2) development machine, `cortado run` median
// of 20.
#pragma once

#include "schedules/cpu/space.h"

namespace cortado::schedules::x86 {

inline FamilySpace space() {
    // The register file of the machine model (AVX2's 16, AVX-512's 32 unless a description
    // says otherwise). 6 output channels x 2 vectors: 12 accumulators + 2 inputs + 1 broadcast
    // weight in 16 registers; 32 registers take 8 channels.
    FamilySpace f = cpu::space([](const TargetInfo &t) { return t.model().vector_registers; },
                               cpu::conv2d_register_tile(
                                   [](const TargetInfo &t) { return t.model().vector_registers >= 32 ? 8 : 6; }, 2));
    f.name = "x86";
    return f;
}

}  // namespace cortado::schedules::x86
