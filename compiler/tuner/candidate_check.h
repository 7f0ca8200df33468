// Checking and timing one tuning candidate, a one-layer network library, against the
// double-precision reference: here (LocalRunner) and on the machine a bundle travels to
// (tools/tune_bundle_runner.cc), with the same code and no libHalide. Each candidate runs in a
// child process of its own, so one that crashes or hangs is rejected without taking the tuner
// down, and a GPU library's context goes with its process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/reference/reference_interpreter.h"
#include "compiler/tuner/runner.h"
#include "frontend/graph.h"

namespace cortado {

// A one-layer network's input (uniform in [-1, 1) from the seed) and the reference output for
// the weights its library makes when created without a weights file (NAME_create(NULL, seed)).
struct LayerReference {
    std::vector<float> input;
    reference::Tensor expected;
};

// `plan`: the graph's plan on the candidates' target (its weight fillers). Throws CompileError
// naming `layer` when the reference cannot run the graph.
LayerReference layer_reference(const Graph &graph, const NetworkPlan &plan, uint64_t seed, const std::string &layer);

// How a candidate is timed: the wall clock around NAME_forward (a CPU library: what a user's
// call takes), or the library's per-layer profile (a GPU library: its kernels, without the copies
// of input and output, which are the same for every candidate).
enum class CandidateTiming { Forward, LayerProfile };

struct CandidateMeasure {
    uint64_t seed = 1;  // NAME_create's
    double tolerance = 0;
    double best_ms = -1;  // the fastest so far; < 0: none
    CandidateTiming timing = CandidateTiming::Forward;
    // With LayerProfile, the one step to time (TuneLayer::timed_step); empty: every step.
    std::string step;
};

// Loads `library` in a child process, checks its output (relative L2 error within the
// tolerance), then times it: a warm-up, 3 runs, and 7 more when the median so far is within 25%
// of best_ms. A child still running after 300 s is killed and the candidate rejected. While it
// runs, `stop()` is asked every 100 ms; when true the child is ended and the outcome is
// Interrupted (so is a child that a stop signal ended).
CandidateRun measure_candidate(const std::string &library, const LayerReference &reference,
                               const CandidateMeasure &how, const std::function<bool()> &stop);

}  // namespace cortado
