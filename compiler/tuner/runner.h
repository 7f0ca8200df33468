// How the tuner (compiler/tuner/tuner.h) gets its candidates built and measured. A Runner opens
// one SignatureRunner per op signature:
//   - LocalRunner (local_runner.h) compiles candidates in child processes and measures them
//     here, each in a child process of its own;
//   - BundleRunner (bundles.h) compiles them into bundles for a machine this one is not (a lent
//     GPU), where tools/tune_bundle_runner measures them, on every GPU of the host at once.
// Tests give the tuner runners of their own (a fake clock and made-up times).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/kernel_choice.h"
#include "compiler/tuner/tune_layers.h"

namespace cortado {

// What compile() leaves in `errors` for a candidate that did not fail by itself; neither is
// recorded, so a rerun tries the candidate again.
inline constexpr char kStoppedByUser[] = "interrupted";
// SIGKILL: the out-of-memory killer or a person, never the candidate's own fault as far as we
// can tell (a hung measurement dies of SIGALRM instead).
inline constexpr char kKilledFromOutside[] = "killed from outside (SIGKILL: out of memory?)";

struct CandidateRun {
    // Interrupted: the user stopped the tuner. KilledFromOutside: see kKilledFromOutside. Neither
    // is recorded.
    enum class Outcome { Measured, Rejected, Interrupted, KilledFromOutside } outcome = Outcome::Rejected;
    std::string reason;  // why it was rejected
    double median_ms = -1, min_ms = -1, max_ms = -1;
    int repetitions = 0;
    double error = -1;  // relative L2 error against the reference (-1: none, or not finite)
};

class SignatureRunner {
  public:
    virtual ~SignatureRunner() = default;

    // Builds each candidate, at most `jobs` at once. Per candidate: what measure() takes (a
    // library's path), or "" with the reason in `errors` (kStoppedByUser and kKilledFromOutside
    // where the candidate is not at fault).
    virtual std::vector<std::string> compile(const std::vector<ChoiceSettings> &candidates, int jobs,
                                             std::vector<std::string> *errors) = 0;

    // Checks a built candidate against the reference (relative L2 within `tolerance`) and times
    // it; `best_ms`, the fastest so far (< 0: none), lets slow candidates cost little.
    virtual CandidateRun measure(const std::string &built, double tolerance, double best_ms) = 0;

    // The built candidate will not be measured again: its files may go.
    virtual void discard(const std::string &built) { (void)built; }
};

class Runner {
  public:
    virtual ~Runner() = default;
    // Throws CompileError when the layer cannot be tuned alone.
    virtual std::unique_ptr<SignatureRunner> open(const TuneLayer &layer) = 0;
};

}  // namespace cortado
