// Turns kernel instances into object files by running the registered Halide generators
// in-process. Objects are cached by content (the instance's signature) so identical layers,
// in this network or any earlier one, compile once.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/toolchain.h"

namespace cortado {

// The directory that holds compiled kernels: HostSettings::kernel_cache_dir, else ~/.cache/cortado.
std::string kernel_cache_dir();

// Returns the path of the compiled object for `kernel` (builds it on a cache miss).
std::string build_kernel(const KernelInstance &kernel);

// The compiled objects of `kernels`, in order: cached ones found, the rest built `jobs` at a time
// (in child processes when jobs > 1). `progress`, when set, is told how many are done. A kernel
// that fails stops new builds; the first failure (in kernel order) is thrown once the running
// ones end.
std::vector<std::string> build_kernels(const std::vector<KernelInstance> &kernels, int jobs,
                                       const std::function<void(size_t done)> &progress = {});

// The cortado runtime library a network built with `toolchain` links: the one built with this
// compiler for the host toolchain, else runtime/*.cc compiled with the cross compiler (cached).
std::string build_cortado_runtime(const Toolchain &toolchain);

// The Halide runtime for `target` as one object (cached).
std::string build_halide_runtime(const std::string &target);

}  // namespace cortado
