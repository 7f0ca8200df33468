// The op signatures of a network that the tuner searches, each with the first layer that uses it
// as a network of its own (its input as the network input, fused activations kept), so that each
// candidate is checked and timed exactly as the planner will compile it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/plan_options.h"
#include "frontend/graph.h"

namespace cortado {

struct TuneLayer {
    std::string signature;           // KernelInstance::op_signature_hash
    KernelInstance default_kernel;   // as the untuned plan has it
    std::vector<std::string> steps;  // the network's steps that run it ("conv1+relu1", ...)
    Graph graph;                     // input -> the layer
};

// The op signatures of `plan` that have something to choose (more than one variant or some
// knobs) and whose layer runs alone (one input and one output); `skipped` says which were left
// out and why.
std::vector<TuneLayer> tune_layers(const Graph &fused, const NetworkPlan &plan, std::vector<std::string> *skipped);

// The layer's kernel when `settings` is the record for its signature; unset, with `why`, when
// the plan refuses them (a limit of the device or the shape).
std::optional<KernelInstance> resolve_candidate(const TuneLayer &layer, const PlanTarget &target,
                                                const PlanOptions &options, const ChoiceSettings &settings,
                                                std::string *why);

// `options` with `settings` as the one record of the layer's signature: how a candidate is planned.
PlanOptions candidate_plan_options(const TuneLayer &layer, const PlanOptions &options, const ChoiceSettings &settings);

}  // namespace cortado
