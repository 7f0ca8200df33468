// Measuring tuning candidates for one op signature of a network. The layer that uses it runs as
// a network of its own (its input as the network input, fused activations kept), so each
// candidate is checked and timed exactly as the planner will compile it. Candidates compile in
// parallel in child processes (at most one per core), and each runs in a child process of its
// own, alone on the machine: a candidate that crashes, hangs or cannot be compiled is rejected
// without taking the tuner down.
#pragma once

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/reference/reference_interpreter.h"
#include "compiler/target_description.h"
#include "frontend/graph.h"

namespace cortado {

// The signals that stop the tuner as Ctrl-C does (a kill, a closed terminal): it notes them and
// finishes cleanly; its children take their default action.
inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// What compile() leaves in `errors` for a candidate that did not fail by itself; neither is
// recorded, so a rerun tries the candidate again.
inline constexpr char kStoppedByUser[] = "interrupted";
// SIGKILL: the out-of-memory killer or a person, never the candidate's own fault as far as we
// can tell (a hung measurement dies of SIGALRM instead).
inline constexpr char kKilledFromOutside[] = "killed from outside (SIGKILL: out of memory?)";

// An op signature of a network, and the first layer that uses it as a one-layer network.
struct TuneLayer {
    std::string signature;           // KernelInstance::op_signature_hash
    KernelInstance default_kernel;   // as the untuned plan has it
    std::vector<std::string> steps;  // the network's steps that run it ("conv1+relu1", ...)
    Graph graph;                     // input -> the layer
};

// The op signatures of `plan` that have something to choose (more than one variant or some
// knobs) and whose layer runs alone (one input); `skipped` says which were left out and why.
std::vector<TuneLayer> tune_layers(const Graph &fused, const NetworkPlan &plan, std::vector<std::string> *skipped);

struct CandidateRun {
    // KilledFromOutside: see kKilledFromOutside; not recorded, like Interrupted.
    enum class Outcome { Measured, Rejected, Interrupted, KilledFromOutside } outcome = Outcome::Rejected;
    std::string reason;  // why it was rejected
    double median_ms = -1, min_ms = -1, max_ms = -1;
    int repetitions = 0;
    double error = -1;
};

class LayerBench {
  public:
    // With `reference`, computes the reference output once (random input and seeded weights),
    // for measure(); without, the bench only resolves and compiles (for another machine).
    LayerBench(const TuneLayer &layer, const TargetDescription &target, const std::string &scratch, uint64_t seed,
               bool reference);

    // The layer's kernel when `settings` is the record for its signature; unset, with `why`,
    // when the plan refuses them (a limit of the device or the shape).
    std::optional<KernelInstance> resolve(const ChoiceSettings &settings, std::string *why) const;

    // Builds each candidate's network as a shared library, `jobs` at a time. Per candidate:
    // the library's path, or empty with the reason in `errors`.
    std::vector<std::string> compile(const std::vector<ChoiceSettings> &candidates, int jobs,
                                     std::vector<std::string> *errors);

    // Checks the library's output against the reference (relative L2 within `tolerance`), then
    // times it: a warm-up, 3 repetitions, and 7 more when the median so far is within 25% of
    // `best_ms` (< 0: none yet), so that slow candidates cost little.
    CandidateRun measure(const std::string &library, double tolerance, double best_ms) const;

  private:
    const TuneLayer &layer_;
    TargetDescription target_;
    std::string scratch_;
    uint64_t seed_;
    std::vector<float> input_;
    reference::Tensor expected_;
    int compiled_ = 0;
};

}  // namespace cortado
