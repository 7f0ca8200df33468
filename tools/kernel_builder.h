// Turns kernel instances into object files by running the registered Halide generators
// in-process. Objects are cached by content (the instance's signature) so identical layers,
// in this network or any earlier one, compile once.
#pragma once

#include <string>

#include "frontend/kernel_plan.h"

namespace cortado {

// The directory that holds compiled kernels: $CORTADO_CACHE, else ~/.cache/cortado.
std::string kernel_cache_dir();

// Resolves a target name from targets/ ("host", "x86-64-avx2", ...) or a Halide target string
// into the canonical Halide target string. Throws CompileError for unknown targets.
std::string resolve_target(const std::string &name);

// Returns the path of the compiled object for `kernel` (builds it on a cache miss).
std::string build_kernel(const KernelInstance &kernel);

// The Halide runtime for `target` as one object (cached).
std::string build_halide_runtime(const std::string &target);

}  // namespace cortado
