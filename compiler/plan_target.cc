#include "compiler/plan_target.h"

#include <cstdlib>
#include <sstream>

#include "compiler/target_features.h"
#include "frontend/compile_error.h"
#include "schedules/families.h"

namespace cortado {

namespace {

using schedules::target_has_feature;

// The highest hvx_vNN feature, 0 without HVX.
int hvx_version(const std::string &halide_target) {
    int version = 0;
    std::stringstream parts(halide_target);
    for (std::string part; std::getline(parts, part, '-');)
        if (part.rfind("hvx_v", 0) == 0) version = std::max(version, std::atoi(part.c_str() + 5));
    return version;
}

bool has_hvx(const std::string &halide_target) {
    return target_has_feature(halide_target, "hvx") || hvx_version(halide_target) > 0;
}

// One float vector register, as Halide's natural vector size counts it.
int vector_bits_of(const std::string &halide_target) {
    if (has_hvx(halide_target)) return 1024;
    if (halide_target.rfind("x86", 0) == 0) {
        if (halide_target.find("avx512") != std::string::npos) return 512;
        if (target_has_feature(halide_target, "avx") || target_has_feature(halide_target, "avx2")) return 256;
    }
    return 128;
}

}  // namespace

std::string default_schedule_family(const std::string &halide_target) {
    if (!gpu_api(halide_target).empty()) return "gpu";
    if (has_hvx(halide_target)) {
        if (hvx_version(halide_target) >= 68) return "hvx";
        throw CompileError("target " + halide_target +
                           ": cortado's HVX schedules use fp32 vectors, which need hvx_v68 or later");
    }
    if (halide_target.rfind("x86-", 0) == 0) return "x86";
    if (halide_target.rfind("arm-64-", 0) == 0) return "arm";
    throw CompileError("cortado has no schedules for target " + halide_target +
                       " yet; x86-64, arm-64, CUDA, OpenCL and HVX (v68+) are supported, and a target "
                       "description with schedule_family = cpu runs any other CPU on the generic family");
}

schedules::TargetInfo resolve_plan_target(const PlanTarget &target) {
    schedules::TargetInfo info;
    info.halide_target = target.halide_target;
    info.family = target.family.empty() ? default_schedule_family(target.halide_target) : target.family;
    info.vector_bits = target.vector_bits > 0 ? target.vector_bits : vector_bits_of(target.halide_target);
    info.registers_per_thread = target.registers_per_thread;
    if (target.cores > 0) info.cores = target.cores;
    info.machine = target.machine;
    if (!schedules::families().count(info.family))
        throw CompileError("unknown schedule family '" + info.family + "'; the families are " +
                           schedules::family_names());
    const bool gpu_target = !gpu_api(target.halide_target).empty();
    if ((info.family == "gpu") != gpu_target)
        throw CompileError(
            "schedule family '" + info.family + "' cannot serve target " + target.halide_target +
            (gpu_target ? ": a GPU target needs the gpu family" : ": the gpu family needs CUDA or OpenCL"));
    if ((info.family == "hvx") != has_hvx(target.halide_target))
        throw CompileError("schedule family '" + info.family + "' cannot serve target " + target.halide_target +
                           ": the hvx family serves exactly the HVX targets");
    if (info.family == "hvx" && hvx_version(target.halide_target) < 68)
        throw CompileError("target " + target.halide_target +
                           ": cortado's HVX schedules use fp32 vectors, which need hvx_v68 or later");
    if (info.family == "x86" && target.halide_target.rfind("x86-", 0) != 0)
        throw CompileError("schedule family 'x86' cannot serve target " + target.halide_target);
    if (info.family == "arm" && target.halide_target.rfind("arm-64-", 0) != 0)
        throw CompileError("schedule family 'arm' cannot serve target " + target.halide_target);
    return info;
}

}  // namespace cortado
