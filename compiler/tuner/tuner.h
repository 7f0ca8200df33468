// A measured search over the variants and knobs of op signatures (tune_layers.h), recorded in a
// tuning database (compiler/tuning_db.h) that compile, run and bench then use. `cortado tune`
// is one caller (tools/command_tune.cc); tests are others, with runners and clocks of their own.
//
// run(budget) spends the budget in two passes. First each signature's default choice is checked
// and timed (and a record transferred from a near machine, where there is one, is the first
// candidate after it), which gives every signature a share of the time: its default time times the number
// of steps that run it. Then the signatures are searched, the largest share first, each for its
// share of the time left (candidate_search.h: the other variants' defaults, then local moves
// around the best and random samples). Candidates compile together, up to `jobs`, and are
// measured one at a time. The last tenth of the budget measures each signature's default and two
// fastest choices once more, one after another. Convolution + pooling pairs (ops/conv2d_pool.h)
// are searched last, and their `unfused` runs the other signatures' fastest choices (TuneLayer::
// neighbours), measured again at the end. Every measured or rejected candidate is appended
// to the database at once, so a stop loses nothing, and a rerun skips what is already recorded.
//
// prepare(count) serves a runner that measures elsewhere (bundles.h): it proposes up to `count`
// new candidates per signature, continuing from the database's records, and has the runner
// build them.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/plan_options.h"
#include "compiler/plan_target.h"
#include "compiler/tuner/candidate_search.h"
#include "compiler/tuner/runner.h"
#include "compiler/tuning_db.h"

namespace cortado {

struct TuneProgress {
    int index = 0, count = 0;  // which op signature, of how many
    std::string steps;         // the steps that run it
    int candidates = 0, rejected = 0;
    double default_ms = -1, best_ms = -1;
    double seconds_left = 0;  // of the budget; < 0: none (prepare)
};

struct TuneSummaryRow {
    std::string steps;
    int step_count = 0;
    double default_ms = -1, tuned_ms = -1;
    std::string choice;  // "variant knob=value ..."; "default (...)" when the default stayed best
    int candidates = 0, rejected = 0;
};

struct TunerOptions {
    std::string db;  // read for the records of earlier runs, appended to
    // Choices measured on other machines (compiler/record_transfer.h), by op signature: each is
    // tried right after its signature's default, so a short budget starts from them.
    ChoiceOverrides seeds;
    PlanTarget target;             // candidates are planned for it
    PlanOptions plan;              // as the network's plan: knob overrides, layouts, test variants
    int jobs = 1;                  // candidates compiled together
    int max_candidates = 1 << 30;  // per signature, counting those of earlier runs
    double max_tolerance = 1.0;    // variants looser than this are not tried
    uint64_t seed = 1;             // the search's random stream (with each signature)
    // Seconds on a clock that only goes forward; unset: the steady clock.
    std::function<double()> clock;
    // Asked between candidates (and by the runners while children run); true stops the tuner.
    std::function<bool()> stop;
    // A line of progress for a signature; `done` when its search ends.
    std::function<void(const TuneProgress &, bool done)> progress;
    // Notes and warnings for the user ("not tuned: ..."); unset: standard error.
    std::function<void(const std::string &)> note;
};

struct PrepareSummary {
    int built = 0;            // candidates the runner took
    int rejected = 0;         // recorded as rejected: they do not compile
    int measured_before = 0;  // choices the database already held
};

class Tuner {
  public:
    // Throws CompileError when the database cannot be written.
    Tuner(Runner &runner, TunerOptions options);
    ~Tuner();

    void add(TuneLayer layer);  // one per signature
    size_t size() const { return tunings_.size(); }
    // Candidates of earlier runs that this one did not run again.
    int resumed() const;

    void run(double budget_seconds);
    PrepareSummary prepare(int count);

    bool stopped_by_user() const { return options_.stop && options_.stop(); }
    std::vector<TuneSummaryRow> summary() const;

  private:
    // One op signature being tuned.
    struct Tuning {
        TuneLayer layer;
        std::unique_ptr<SignatureRunner> runner;
        std::unique_ptr<CandidateSearch> search;
        double default_ms = -1;
        std::string default_key;
        int candidates = 0, rejected = 0, resumed = 0;
        bool exhausted = false;
        std::map<std::string, double> latest;      // choice -> its latest median (< 0: rejected)
        std::map<std::string, std::string> built;  // choice -> what its runner built, where kept
        std::string default_failure;               // why the default choice was rejected
    };
    // Candidates proposed together: what each proposal fixed, its kernel and its choice.
    struct Batch {
        std::vector<ChoiceSettings> settings;
        std::vector<KernelInstance> kernels;
        std::vector<Candidate> candidates;
    };
    Batch propose(Tuning &t, int count, int max_attempts, bool elsewhere);
    double now() const;
    bool stopped() const;
    double seconds_left() const;
    void note(const std::string &text) const;
    bool start(Tuning &t);
    void step(Tuning &t, int count);
    void confirm(Tuning &t);
    static bool is_pair(const Tuning &t);
    void share_fastest(Tuning &t);
    void drop_non_finalists(Tuning &t);
    void write(const Tuning &t, const KernelInstance &k, const CandidateRun &run);
    void warn_not_recorded(const Tuning &t, const std::string &key, const std::string &why) const;
    const TuningRecord *last_hand_written(const std::string &signature) const;
    TuneProgress progress(const Tuning &t) const;
    void report(const Tuning &t, bool done) const;

    Runner &runner_;
    TunerOptions options_;
    bool budgeted_ = false;  // run(budget), not prepare(count)
    double deadline_ = 0, phase_end_ = 0;
    std::map<std::string, std::vector<TuningRecord>> earlier_;
    std::ofstream db_;
    std::vector<Tuning> tunings_;
    int current_ = 0;
};

}  // namespace cortado
