// A target as users name it: `host`, a description in targets/ (NAME.target), or a Halide
// target string. Descriptions add what a Halide string cannot say: the schedule-knob table
// tuned for the device, and its roofline (peak and bandwidth) for `cortado bench`.
#pragma once

#include <string>

namespace cortado {

struct TargetDescription {
    std::string name;           // as given on the command line
    std::string file;           // the description file read; empty for host and Halide strings
    std::string halide_target;  // canonical Halide target string
    std::string knobs;          // "generator.param=value,..." (empty: the schedules' defaults)
    double peak_gflops = 0;     // fp32 arithmetic peak; 0 when the description gives none
    double bandwidth_gbs = 0;   // main-memory bandwidth; 0 when the description gives none
    // GPU registers a thread may use: GPU schedules size their register tiles to it (as the
    // knob cortado_conv2d.gpu_registers, ahead of the table) and, on CUDA, the network runtime
    // raises the driver's per-kernel cap to it. 0: Halide's default (64 on CUDA).
    int registers_per_thread = 0;
};

// `name`: "host", a file name in targets/ without ".target", a path ending in ".target", or a
// Halide target string. Throws CompileError for unknown names, invalid Halide strings and
// malformed descriptions (naming file:line).
TargetDescription resolve_target(const std::string &name);

}  // namespace cortado
