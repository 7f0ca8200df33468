// `cortado compile` behind the CLI: plan -> kernels (cached) + Halide runtime + emitted glue,
// archived into one static library a user links with -lpthread -ldl.
#pragma once

#include <string>
#include <utility>

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

struct BuildOptions {
    BuildOptions() = default;
    explicit BuildOptions(PlanOptions plan_options, int build_jobs = 1, bool show_progress = false)
        : plan(std::move(plan_options)), jobs(build_jobs), verbose(show_progress) {}

    PlanOptions plan;
    // Kernels compiled at once, each in a process of its own when above 1: only where no other
    // thread of the process can hold a lock (compiler/child_processes.h).
    int jobs = 1;
    bool verbose = false;  // progress on stderr, when it is a terminal
    // A caffemodel's absolute path: the library carries its bytes, for NAME_create_embedded().
    std::string embedded_weights;
    // The same network imported at batch 1: when the graph's batch is above 1, the library also
    // carries it, for NAME_forward_batch below the compiled batch (its kernels compile too).
    const Graph *single_image = nullptr;
};

// Compiles with the target's Halide string, family and knob table, and the options.
BuiltNetwork build_network(const Graph &graph, const std::string &name, const TargetDescription &target,
                           const std::string &out_dir, const BuildOptions &options = {});

// Links a static network library into a shared object for `cortado run` to dlopen.
std::string link_shared_library(const BuiltNetwork &network, const std::string &out_dir);

// Compiles one kernel (cached) and links it with the Halide runtime into a shared object that
// exports the kernel's function, for a caller that runs a single op (`cortado bench sgemm`).
std::string link_kernel_library(const KernelInstance &kernel, const std::string &out_dir);

}  // namespace cortado
