// Tuning a machine this one is not (a lent GPU), in rounds:
//   1. `cortado tune NET|--suite S --target GPU --prepare DIR [--max-candidates K] [--db DB]`: the
//      tuner (tuner.h, prepare) proposes up to K new candidates per op signature, continuing
//      from DB's records (the first round around the defaults, later rounds around the fastest
//      measured), and the BundleRunner compiles each into a one-layer network library, in
//      bundles DIR/bundle-N of at most 40 MiB. Each bundle's tune.json lists its signatures
//      (with the layer as graph JSON, compiler/graph_json.h) and candidates. Candidates that do
//      not compile are recorded as rejected in DB at once.
//   2. On that machine, `tune_bundle_runner DIR/bundle-N OUT.jsonl` (tools/tune_bundle_runner.cc,
//      no libHalide) computes each layer's reference with the double-precision interpreter,
//      checks each candidate against it within its tolerance, times it with the library's
//      per-layer profile, and writes one record per candidate; with --devices N it measures on
//      N GPUs at once.
//   3. `cortado tune --import OUT.jsonl [--db DB]` appends the records to DB.
// Each round's records steer the next round's proposals.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/plan_options.h"
#include "compiler/target_description.h"
#include "compiler/temporary_directory.h"
#include "compiler/tuner/runner.h"

namespace cortado {

class Bundles;

class BundleRunner : public Runner {
  public:
    // Bundles go to `dir` (bundle-0, bundle-1, ...); each candidate's library is created on the
    // other machine with `seed`. `stop`: as LocalRunner's.
    BundleRunner(TargetDescription target, PlanOptions options, uint64_t seed, const std::string &dir,
                 std::function<bool()> stop);
    ~BundleRunner() override;

    std::unique_ptr<SignatureRunner> open(const TuneLayer &layer) override;

    // Writes every bundle's manifest; returns the bundle folders that hold candidates.
    std::vector<std::string> finish();
    int candidates() const;

    // What the runner's signature runners share.
    struct Shared {
        TargetDescription target;
        PlanOptions options;
        std::function<bool()> stop;
        TemporaryDirectory scratch;
        std::unique_ptr<Bundles> bundles;
    };

  private:
    Shared shared_;
};

// Appends the records of `file` (what tune_bundle_runner wrote) to `db`, after checking that each
// is a complete measured or rejected record; reports per signature what it holds. Returns how
// many were appended.
int import_tuning_records(const std::string &file, const std::string &db);

}  // namespace cortado
