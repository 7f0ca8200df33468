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

// The compiled objects of `kernels`, in order, then the Halide runtime's for `runtime_target`:
// cached ones found, the rest built `jobs` at a time (each in a child process of its own when
// jobs > 1: see run_in_child_processes for where that is safe). `progress`, when set, is told how many kernels are done. A build that fails stops
// new ones; the first failure (in that order) is thrown once the running ones end.
std::vector<std::string> build_kernels_and_runtime(const std::vector<KernelInstance> &kernels,
                                                   const std::string &runtime_target, int jobs,
                                                   const std::function<void(size_t kernels_done)> &progress = {});

// The cortado runtime library a network built with `toolchain` links: the one built with this
// compiler for the host toolchain, else runtime/*.cc compiled with the cross compiler (cached).
std::string build_cortado_runtime(const Toolchain &toolchain);

// The Halide runtime for `target` as one object (cached).
std::string build_halide_runtime(const std::string &target);

}  // namespace cortado
