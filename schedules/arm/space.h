// The ARM64 family: the generic CPU space with the register tiles sized for NEON's 32
// registers: the convolution's is 8 output channels x 3 vectors of 4 floats, the GEMM's 8 x 3. NEON has 32 vector registers: 24 accumulators,
// 3 input vectors and a broadcast weight fit with room for addresses, where x86's 6 x 2 tile
// would leave half the register file idle. Checked under qemu-aarch64 (no ARM hardware here,
// so no ARM timings are claimed).
#pragma once

#include "schedules/cpu/space.h"

namespace cortado::schedules::arm {

inline FamilySpace space() {
    // The register file of the machine model: NEON's 32 unless a description says otherwise.
    FamilySpace f = cpu::space([](const TargetInfo &t) { return t.model().vector_registers; },
                               cpu::conv2d_register_tile([](const TargetInfo &) { return 8; }, 3));
    f.name = "arm";
    return f;
}

}  // namespace cortado::schedules::arm
