// Which folder of schedules/ serves a Halide target. Adding a device family means a case here
// and a folder there; the algorithms never change. Memory-bound ops share schedules/cpu/ on
// x86 and ARM (written in the target's vector width); convolution has one file per family.
#pragma once

#include <string>

#include "Halide.h"

namespace cortado {

enum class ScheduleFamily { X86, ARM, GPU, HVX };

inline ScheduleFamily schedule_family_for(const Halide::Target &target) {
    using Halide::Target;
    if (target.has_feature(Target::CUDA) || target.has_feature(Target::OpenCL)) return ScheduleFamily::GPU;
    if (target.has_feature(Target::HVX)) {
        if (target.has_feature(Target::HVX_v68)) return ScheduleFamily::HVX;
        throw Halide::CompileError("target " + target.to_string() +
                                   ": cortado's HVX schedules use fp32 vectors, which need hvx_v68 or later");
    }
    if (!target.has_gpu_feature() && target.arch == Target::X86) return ScheduleFamily::X86;
    if (!target.has_gpu_feature() && target.arch == Target::ARM && target.bits == 64) return ScheduleFamily::ARM;
    throw Halide::CompileError("cortado has no schedules for target " + target.to_string() +
                               " yet; x86-64, arm-64, CUDA, OpenCL and HVX (v68+) are supported");
}

// Lanes of a float vector for kernels that size partial sums by it.
inline int float_vector_lanes(const Halide::Target &target) {
    return schedule_family_for(target) == ScheduleFamily::HVX ? 32 : target.natural_vector_size<float>();
}

}  // namespace cortado
