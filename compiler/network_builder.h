// `cortado compile` behind the CLI: plan -> kernels (cached) + Halide runtime + emitted glue,
// archived into one static library a user links with -lpthread -ldl.
#pragma once

#include <string>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"
#include "compiler/toolchain.h"
#include "frontend/graph.h"

namespace cortado {

struct BuiltNetwork {
    NetworkPlan plan;
    std::string header;   // DIR/NAME.h
    std::string library;  // DIR/libNAME.a
    Toolchain toolchain;  // what built it; links the shared library too
};

// Compiles with the target's Halide string, family and knob table, and the tuning records in
// `overrides`. Prints progress to stderr when `verbose`. With `embedded_weights` (a caffemodel's
// absolute path) the library carries that file's bytes, for NAME_create_embedded().
BuiltNetwork build_network(const Graph &graph, const std::string &name, const TargetDescription &target,
                           const std::string &out_dir, bool verbose, const ChoiceOverrides &overrides = {},
                           const std::string &embedded_weights = "");

// Links a static network library into a shared object for `cortado run` to dlopen.
std::string link_shared_library(const BuiltNetwork &network, const std::string &out_dir);

// Compiles one kernel (cached) and links it with the Halide runtime into a shared object that
// exports the kernel's function, for a caller that runs a single op (`cortado bench sgemm`).
std::string link_kernel_library(const KernelInstance &kernel, const std::string &out_dir);

}  // namespace cortado
