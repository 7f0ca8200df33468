// ARM64 NEON schedule for conv2d: the CPU register-tiled direct convolution with a tile of
// 8 output channels x 3 vectors of 4 floats. NEON has 32 vector registers: 24 accumulators,
// 3 input vectors and a broadcast weight fit with room for addresses, where x86's 6 x 2 tile
// would leave half the register file idle. Checked under qemu-aarch64 (no ARM hardware here,
// so no ARM timings are claimed).
#pragma once

#include "schedules/cpu/conv2d_register_tile.h"

namespace cortado::schedules::arm {

inline void schedule_conv2d(Conv2d &a, const Conv2dShape &s, const Halide::Target &target) {
    cpu::schedule_conv2d_register_tile(a, s, target, 8, 3);
}

}  // namespace cortado::schedules::arm
