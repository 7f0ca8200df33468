// The target as the planner sees it, without linking Halide: the Halide target string, the
// schedule family (from the target description, else from the string), the vector width and
// GPU register budget the default rules size tiles by, the cores they cut parallel loops for,
// the machine model (registers, FMA pipes, caches) they size register tiles and cache blocks
// by, the description's knob table, and the OpenCL compiler options the network runtime hands on.
#pragma once

#include <optional>
#include <string>

#include "schedules/space.h"

namespace cortado {

struct PlanTarget {
    std::string halide_target;         // canonical Halide target string
    std::string family;                // empty: the Halide string's usual family
    int vector_bits = 0;               // 0: from the Halide string
    int registers_per_thread = 0;      // 0: the GPU API's default
    int cores = 0;                     // CPUs; 0: schedules::kAssumedCores
    // CPUs: the description's or the detected model; empty: the Halide string's
    // (schedules::instruction_set_machine_model).
    std::optional<schedules::MachineModel> machine;
    std::string knobs;                 // the description's table, "op.knob=value,..."
    std::string opencl_build_options;  // OpenCL: options for the driver's compiler

    PlanTarget() = default;
    PlanTarget(std::string halide) : halide_target(std::move(halide)) {}  // NOLINT: plain strings plan too
    PlanTarget(const char *halide) : halide_target(halide) {}             // NOLINT
};

// The family a Halide target string gets by default: gpu for CUDA and OpenCL, hvx for HVX
// v68+, x86 and arm (64-bit) by architecture. Throws CompileError for targets with none.
std::string default_schedule_family(const std::string &halide_target);

// Fills in the family and vector width and checks that the family exists and can serve the
// target (a GPU family for a GPU target, a CPU one otherwise). Throws CompileError.
schedules::TargetInfo resolve_plan_target(const PlanTarget &target);

}  // namespace cortado
