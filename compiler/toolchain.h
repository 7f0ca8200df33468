// The C++ compiler and archiver that build a network's glue and its library for a Halide
// target: the host's own for code this machine runs, a GNU cross toolchain for other
// architectures (aarch64-linux-gnu- for arm-64-linux, including HVX offload from an ARM host).
#pragma once

#include <string>

namespace cortado {

struct Toolchain {
    std::string cxx;     // compiles the glue, links shared libraries
    std::string ar;      // builds the static library
    bool cross = false;  // the code cannot run on this machine
};

// Throws CompileError naming the package to install when a cross compiler is missing.
// $CORTADO_CROSS_PREFIX (e.g. "aarch64-linux-gnu-") overrides the cross toolchain prefix.
Toolchain toolchain_for(const std::string &halide_target);

// "" when this machine can execute code for `halide_target`; otherwise why not: another
// architecture, or an instruction set this CPU lacks (AVX-512 code on an AVX2-only CPU).
std::string why_cannot_run_here(const std::string &halide_target);

// Throws CompileError with why_cannot_run_here's reason: what `cortado run` and `bench`
// execute must be able to run here.
void require_runs_here(const std::string &halide_target, const std::string &command);

}  // namespace cortado
