// Limits of CUDA and OpenCL devices that every GPU variant's default rule and constraint check
// respects (Halide-free).
#pragma once

#include <string>
#include <vector>

#include "schedules/space.h"

namespace cortado::schedules::gpu {

// 255 is the most a CUDA thread can address. Halide 21's CUDA runtime caps every kernel at 64
// unless the network runtime raises the cap (runtime/cuda_register_cap.h).
inline int register_budget(const TargetInfo &t) { return t.registers_per_thread > 0 ? t.registers_per_thread : 64; }

// Knobs every direct convolution variant reads: the thread count its split of the reduction
// aims for, and the register budget its tile is sized to.
inline std::vector<KnobSpec> conv2d_launch_knobs() {
    return {{"target_threads", 1024, 1 << 22, "threads the split of the reduction aims for"},
            {"registers", 16, 255, "registers per thread the tile may plan for"}};
}

inline std::string block_too_large(int threads) {
    return threads > 1024 ? "a block of " + std::to_string(threads) + " threads; CUDA and OpenCL allow 1024" : "";
}

}  // namespace cortado::schedules::gpu
