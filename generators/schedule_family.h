// Which folder of schedules/ serves a Halide target. Adding a device family means a case here
// and a folder there; the algorithms never change.
#pragma once

#include <string>

#include "Halide.h"

namespace cortado {

enum class ScheduleFamily { X86, GPU };

inline ScheduleFamily schedule_family_for(const Halide::Target &target) {
    using Halide::Target;
    if (target.has_feature(Target::CUDA) || target.has_feature(Target::OpenCL)) return ScheduleFamily::GPU;
    if (target.has_gpu_feature() || target.arch != Target::X86)
        throw Halide::CompileError("cortado has no schedules for target " + target.to_string() +
                                   " yet; x86-64, CUDA and OpenCL are supported");
    return ScheduleFamily::X86;
}

}  // namespace cortado
