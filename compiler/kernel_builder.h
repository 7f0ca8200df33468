// Turns kernel instances into object files by running the registered Halide generators
// in-process. Objects are cached by content (the instance's signature) so identical layers,
// in this network or any earlier one, compile once.
#pragma once

#include <string>

#include "compiler/kernel_plan.h"
#include "compiler/toolchain.h"

namespace cortado {

// The directory that holds compiled kernels: $CORTADO_CACHE, else ~/.cache/cortado.
std::string kernel_cache_dir();

// Returns the path of the compiled object for `kernel` (builds it on a cache miss).
std::string build_kernel(const KernelInstance &kernel);

// The cortado runtime library a network built with `toolchain` links: the one built with this
// compiler for the host toolchain, else runtime/*.cc compiled with the cross compiler (cached).
std::string build_cortado_runtime(const Toolchain &toolchain);

// The Halide runtime for `target` as one object (cached).
std::string build_halide_runtime(const std::string &target);

}  // namespace cortado
