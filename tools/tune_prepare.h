// Tuning a GPU this machine lacks, in rounds:
//   1. `cortado tune NET|--suite S --target GPU --prepare DIR [--max-candidates K] [--db DB]`
//      proposes up to K new candidates per op signature (the search of tools/tune_candidates.h,
//      continuing from DB's records: the first round around the defaults, later rounds around
//      the fastest measured) and compiles each into a one-layer network library, in bundles
//      DIR/bundle-N of at most 40 MiB; each bundle's tune.json lists its signatures (with the
//      layer as graph JSON) and candidates. Candidates that do not compile are recorded as
//      rejected in DB at once.
//   2. On the GPU machine, `python3 tools/bench/tune_runner.py DIR/bundle-N OUT.jsonl` checks each
//      candidate against a float64 PyTorch reference of the layer within its tolerance, times it
//      with the library's per-layer profile, and writes one record per candidate (libHalide is
//      not needed there).
//   3. `cortado tune --import OUT.jsonl [--db DB]` appends the records to DB.
// Each round's records steer the next round's proposals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/target_description.h"
#include "tools/tune_measure.h"

namespace cortado {

struct PrepareOptions {
    std::string dir, db;
    int candidates = 8;  // new candidates per op signature
    int jobs = 1;
    uint64_t seed = 1;
    double max_tolerance = 1.0;
};

void prepare_tuning_bundles(const std::vector<TuneLayer> &layers, const TargetDescription &target,
                            const PrepareOptions &options);

// Appends the records of `file` to `db`, after checking that each is a complete measured or
// rejected record; reports per signature what it holds. Returns how many were appended.
int import_tuning_records(const std::string &file, const std::string &db);

}  // namespace cortado
