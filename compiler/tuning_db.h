// Tuning databases: one JSON object per line, each a record of how one op signature is computed
// on one target and family:
//   {"op_signature": "9c0e4f2a1b3d5e6f", "op": "conv2d", "variant": "gpu_register_tile",
//    "knobs": {"rows": 8, "channels": 8}, ...}
// `op_signature` is KernelInstance::op_signature_hash (`cortado info --plan` prints it): the
// shape, the resolved Halide target (so `host` keeps AVX2 and AVX-512 machines apart) and the
// family. Knobs a record leaves out come from the weaker sources (compiler/kernel_choice.h).
//
// `cortado tune` writes measured records, which add the layer, shape, target, family, the
// median and spread of the run times, the error against the reference and the variant's
// tolerance, the date and the variant's schedule version (compiler/schedule_version.h); a candidate
// that failed its check, crashed or did not compile is recorded with "rejected": true and the
// reason, so that it is never chosen and a rerun does not try it again.
//
// For each op signature a database offers one record: the last hand-written one (no
// "median_ms") if any, else, of the choices measured at the current schedule version (stale
// records are ignored with a note), the one whose latest record has the least median and was not
// rejected. A later measurement of the same choice replaces an earlier one (`cortado tune`
// measures its finalists again, side by side); ties go to the smaller variant name and knob
// text, so that the choice never depends on the order of lines of different choices. Lines that are not
// records (bad JSON, unknown ops, knobs that are not whole numbers) are skipped with a warning
// naming the file and line.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"

namespace cortado {

struct TuningRecord {
    std::string op_signature, op, variant;
    std::vector<std::pair<std::string, int>> knobs;
    // What `cortado tune` adds; a hand-written record may leave all of these out.
    std::string layer, shape, target, family, schedule_version, date;
    bool rejected = false;
    std::string reason;                               // why it was rejected
    double median_ms = -1, min_ms = -1, max_ms = -1;  // < 0: not measured
    int repetitions = 0;
    double error = -1, tolerance = -1;
    std::string where;  // FILE:LINE it was read from; empty for new records

    bool measured() const { return median_ms >= 0 && !rejected; }
    bool hand_written() const { return median_ms < 0 && !rejected; }
};

// A record of `kernel`'s choice for its op signature, as run by `layer`: everything but the
// outcome (timings, error, rejection), dated today, at the variant's current schedule version.
TuningRecord tuning_record_for(const KernelInstance &kernel, const std::string &layer);

// One line of JSON (no newline), floats at full precision.
std::string tuning_record_json(const TuningRecord &record);

struct TuningDbFile {
    std::vector<TuningRecord> records;
    std::vector<std::string> warnings;  // "FILE:LINE: why the line was skipped"
};

// Reads every record of `path`. A missing file is an error when `must_exist`, else empty.
TuningDbFile read_tuning_records(const std::string &path, bool must_exist);

// The choice each op signature takes from the databases, strongest first: `--db FILE` when
// given, the user's database, then the ones shipped in targets/tuning/.
struct TuningChoices {
    ChoiceOverrides records;
    // Why records of a signature were passed over (stale schedule versions), by signature.
    std::map<std::string, std::vector<std::string>> notes;
    std::vector<std::string> warnings;
    std::vector<std::string> files;  // the databases read, strongest first
    // Machines whose records stand in for this target's (compiler/record_transfer.h), nearest
    // first: the description's name or Halide target, the machine distance, the signatures taken.
    struct Transfer {
        std::string name;
        double distance = 0;
        int signatures = 0;
    };
    std::vector<Transfer> transfers;
};

// Adds the best record of each signature in `file` that `choices` does not have yet.
void add_tuning_records(const TuningDbFile &file, TuningChoices &choices);

// The user's database: $CORTADO_CACHE/tuning.jsonl, else ~/.cache/cortado/tuning.jsonl.
std::string user_tuning_db();
// The databases shipped with cortado (targets/tuning/*.jsonl), sorted.
std::vector<std::string> shipped_tuning_dbs();

// `explicit_db` (may be empty) must exist; the others are read when present. With `untuned`,
// nothing is read. With `transfer_to`, signatures that have no record of their own take the
// nearest other machine's within `farthest` (compiler/record_transfer.h).
TuningChoices load_tuning_choices(const std::string &explicit_db, bool untuned,
                                  const TargetDescription *transfer_to = nullptr,
                                  double farthest = schedules::kAlikeMachineDistance);

// Prints the warnings, and the notes for signatures `plan` uses, to stderr as "cortado: note:".
void report_tuning_notes(const TuningChoices &choices, const NetworkPlan &plan);

// The records of a single file as overrides (kernel_choice_test, `cortado tune`).
ChoiceOverrides read_tuning_db(const std::string &path);

}  // namespace cortado
