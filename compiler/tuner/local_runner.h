// The runner that measures here (runner.h): each op signature's candidates compile in parallel in
// child processes (at most `jobs` at once), each into a one-layer network library, and each is
// checked and timed in a child process of its own, alone on the machine (candidate_check.h). A
// candidate that crashes, hangs or cannot be compiled is rejected without taking the tuner down;
// one whose compile is killed from outside is not (kKilledFromOutside).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "compiler/child_processes.h"
#include "compiler/plan_options.h"
#include "compiler/target_description.h"
#include "compiler/temporary_directory.h"
#include "compiler/tuner/runner.h"

namespace cortado {

class LocalRunner : public Runner {
  public:
    // `options`: the plan's (knob overrides, layouts, test variants); each candidate's choice is
    // its one record. `stop`: asked while children run; true ends them (StopSignals::requested).
    LocalRunner(TargetDescription target, PlanOptions options, uint64_t seed, std::function<bool()> stop);

    // Computes the layer's reference output once, for every candidate's check.
    std::unique_ptr<SignatureRunner> open(const TuneLayer &layer) override;

  private:
    TargetDescription target_;
    PlanOptions options_;
    uint64_t seed_;
    std::function<bool()> stop_;
    TemporaryDirectory scratch_;
};

// Builds each candidate as a one-layer network library, in child processes, at most `jobs` at
// once, each in a new folder under `folder` (numbered from *counter on). Per candidate: the
// library's path, or "" with why in `errors` (compile_failure). `stop`: as LocalRunner's.
std::vector<std::string> compile_candidates(const TuneLayer &layer, const TargetDescription &target,
                                            const PlanOptions &options, const std::vector<ChoiceSettings> &candidates,
                                            int jobs, const std::string &folder, int *counter,
                                            const std::function<bool()> &stop, std::vector<std::string> *errors);

// Throws CompileError when the layer, planned alone with `options`, has no kernel of its
// signature, or (a blocked layer) not in the network's layouts: then its timing would say
// nothing about the network.
void check_runs_alone(const TuneLayer &layer, const NetworkPlan &plan);

// Why a candidate's compile, run as a child process, failed: kStoppedByUser (a stop signal),
// kKilledFromOutside (SIGKILL), else what the compiler threw or how its process ended.
std::string compile_failure(const ChildOutcome &outcome);

}  // namespace cortado
