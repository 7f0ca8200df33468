// A target as users name it: `host`, a description in targets/ (NAME.target), or a Halide
// target string. Descriptions add what a Halide string cannot say: the schedule-knob table
// tuned for the device, its machine model (registers, FMA pipes, caches) for the CPU default
// rules, and its roofline (peak and bandwidth) for `cortado bench`.
#pragma once

#include <string>
#include <vector>

#include "compiler/plan_target.h"
#include "frontend/compile_error.h"

namespace cortado {

struct TargetDescription {
    std::string name;             // as given on the command line
    std::string file;             // the description file read; empty for host and Halide strings
    std::string halide_target;    // canonical Halide target string
    std::string knobs;            // "op.knob=value,..." (empty: the family's default rules)
    std::string schedule_family;  // the description's, else the Halide string's usual family
    int vector_bits = 0;          // the description's, else Halide's natural float vector size
    double peak_gflops = 0;       // fp32 arithmetic peak; 0 when the description gives none
    double bandwidth_gbs = 0;     // main-memory bandwidth; 0 when the description gives none
    // GPU registers a thread may use: the default of the GPU convolutions' `registers` knob,
    // which sizes their register tiles; on CUDA the network runtime raises the driver's
    // per-kernel cap to the plan's largest. 0: Halide's default (64 on CUDA).
    int registers_per_thread = 0;
    // CPUs: the cores the library's parallel loops run on. `host`: the threads the runtime's
    // pool starts here (HL_NUM_THREADS, else the hardware's); a description's `cores`; else 0,
    // schedules::kAssumedCores.
    int cores = 0;
    // CPUs: the figures the default rules size tiles and blocks by (targets/README.md): the
    // description's keys over the instruction set's; `host` reads its caches from the system.
    schedules::MachineModel machine;
    // OpenCL only: options the network runtime hands the driver's compiler (e.g. NVIDIA's
    // -cl-nv-maxrregcount=128, which lets kernels use the registers their tiles plan for).
    std::string opencl_build_options;

    PlanTarget plan_target() const;
};

// A target name that is none of those resolve_target takes: a usage error (exit 2), where a
// description file that exists but is wrong is bad input.
class UnknownTarget : public CompileError {
  public:
    using CompileError::CompileError;
};

// `name`: "host", a file name in targets/ without ".target", a path ending in ".target", or a
// Halide target string. Throws UnknownTarget for names that are none of these, CompileError for
// malformed descriptions (naming file:line) and families that cannot serve the target.
TargetDescription resolve_target(const std::string &name);

// The names of the shipped target descriptions (share/cortado/targets/*.target), sorted.
std::vector<std::string> target_description_names();

}  // namespace cortado
