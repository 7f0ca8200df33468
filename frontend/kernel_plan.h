// The compiled form of a network before code emission: which kernels (generator + constant
// parameters) run in which order on which tensor views, which learned blobs are expected and
// how they are packed, and where every tensor lives in the arena.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "frontend/graph.h"
#include "runtime/network_description.h"

namespace cortado {

// A generator with all its parameters fixed. Identical instances share one compiled object:
// `function_name` is derived from the content (generator, parameters, target).
struct KernelInstance {
    std::string generator;
    std::vector<std::pair<std::string, std::string>> params;
    std::string target;
    std::string signature() const;      // canonical text of all of the above
    std::string function_name() const;  // "cortado_k_<hash of signature>"
};

struct PlannedTensor {
    int value;  // Graph value id
    std::string blob_name;
    Shape shape;
    int64_t offset = 0;  // floats into the arena
};

struct PlannedBlob {
    std::string layer;
    int index;
    Shape shape;
    FillerSpec filler;
};

struct PlannedParam {
    Packing packing;
    int first_blob;
    int64_t count, rows = 0, cols = 0;
    float eps = 0.0f;
};

struct PlannedView {
    int tensor;  // >= 0 tensor index, < 0 param -1 - index
    std::vector<int> extents;  // innermost first
};

struct PlannedStep {
    std::string layer;  // with fused layers: "conv1+relu1"
    int kernel = -1;    // index into NetworkPlan::kernels; -1 = alias only
    std::vector<PlannedView> views;
    int output_tensor;
};

struct NetworkPlan {
    std::string name;
    std::string target;  // the Halide target string every kernel is compiled for
    std::vector<KernelInstance> kernels;  // unique
    std::vector<PlannedTensor> tensors;
    std::vector<PlannedBlob> blobs;
    std::vector<PlannedParam> params;
    std::vector<PlannedStep> steps;
    int input_tensor = 0, output_tensor = 0;
    int64_t arena_floats = 0;
    // The largest GPU register budget its kernels were scheduled for (the gpu_registers knob,
    // from the target's registers_per_thread); 0: none asked, the driver's default.
    int registers_per_thread = 0;
};

// Throws CompileError for graphs the C API cannot express (several inputs or outputs, rank > 4).
// `knobs` is the target's schedule-knob table, "generator.param=value,..." (targets/*.target);
// $CORTADO_KNOBS, in the same form, is applied after it for tuning experiments.
NetworkPlan plan_network(const Graph &graph, const std::string &name, const std::string &target,
                         const std::string &knobs = "");

}  // namespace cortado
