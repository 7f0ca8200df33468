// The op signatures of a network that the tuner searches, each with the first layer that uses it
// as a network of its own (its input as the network input, fused activations kept), so that each
// candidate is checked and timed exactly as the planner will compile it. A layer that the network
// runs on channel-blocked tensors (ops::Layout) is measured in them: its network puts a 1x1
// convolution before it where it reads blocks and a 1x1 MAX pooling after it where it writes
// blocks, which the planner blocks as the network's neighbours are; only variants that take
// blocks are tried, and only the layer's own step is timed.
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
    Graph graph;                     // input -> [1x1 conv ->] the layer [-> 1x1 pooling]
    // Where the network reads or writes the layer's tensors in channel blocks, `graph` is wrapped
    // and this is the layer's step in it, the one timed; empty: the whole forward is timed.
    std::string timed_step;
    // Records for the other signatures `graph` runs (a pair's convolution and pooling): the
    // fastest choice the tuner has found for each so far, so that `unfused` times the pair's two
    // steps as the tuned network would run them.
    ChoiceOverrides neighbours;
    bool blocked() const { return !timed_step.empty(); }
};

// The op signatures of `plan` that have something to choose (more than one variant or some
// knobs) and whose layer runs alone (one input and one output); `skipped` says which were left
// out and why. Then the convolution + MAX pooling pairs of `compiled` (or `plan`), fused or not
// (ops/conv2d_pool.h), each measured as the pair alone: its `unfused` choice times the two steps.
// `compiled`, where given, is the plan compile makes of the fully fused network
// (`plan`'s graph may fuse less, so that each layer's reference knows it): each signature's first
// kernel there gives the variant and the layouts the layer is measured in.
std::vector<TuneLayer> tune_layers(const Graph &fused, const NetworkPlan &plan, std::vector<std::string> *skipped,
                                   const NetworkPlan *compiled = nullptr);

// The kernel that computes the layer in `plan`, a plan of its `graph`: its step's, where it has a
// timed step (the 1x1 convolutions around it may share its signature), else the first of its
// signature, else the `unfused` choice of a pair of its signature (NetworkPlan::unfused_pairs);
// null when there is none of its signature.
const KernelInstance *layer_kernel(const TuneLayer &layer, const NetworkPlan &plan);

// Why `kernel` would not run in the network's layouts (TuneLayer::default_kernel's), for a blocked
// layer; empty when it would, and for every unblocked one.
std::string layout_mismatch(const TuneLayer &layer, const KernelInstance &kernel);

// The layer's kernel when `settings` is the record for its signature; unset, with `why`, when
// the plan refuses them (a limit of the device or the shape).
std::optional<KernelInstance> resolve_candidate(const TuneLayer &layer, const PlanTarget &target,
                                                const PlanOptions &options, const ChoiceSettings &settings,
                                                std::string *why);

// `options` with `settings` as the record of the layer's signature, beside its neighbours' records:
// how a candidate is planned.
PlanOptions candidate_plan_options(const TuneLayer &layer, const PlanOptions &options, const ChoiceSettings &settings);

}  // namespace cortado
