// Tuning records that transfer: where no record exists for a layer's op signature on this
// target, the record of the nearest machine of the same instruction-set level for the same op,
// shape and family stands in (issue 46). Nearest by the machine model (schedules/machine_model.h);
// a source machine's model is its shipped description's (the description whose Halide target is
// the record's, with or without the `tune_` processor), else the one its Halide string implies.
// Records never cross instruction-set levels that change the code (SSE, AVX2, AVX-512; ARM64),
// nor families, nor to GPUs (their records key on the GPU API alone, so they apply as they are).
//
// Compile, run and bench take them only from machines alike within
// schedules::kAlikeMachineDistance (the same registers and FMA pipes, caches within a factor of
// two): records of less alike machines ran slower than the default rules (docs/PERFORMANCE.md,
// "Records that transfer"). `cortado tune` takes the nearest machine's at any distance as the
// first candidate after the default, where a measurement decides.
//
// A transferred record is weaker than any exact one. The planner checks it against this
// target's limits: a knob out of range, or a tile the registers cannot hold, drops the record
// for that layer with a note, and the knobs that cut tasks for the cores (KnobSpec::splits_tasks)
// are left to this target's default rule where the source had another number of cores.
#pragma once

#include <string>
#include <vector>

#include "compiler/target_description.h"
#include "compiler/tuning_db.h"

namespace cortado {

// The Halide target without its `tune_` processor: the code Halide emits is the same, so a
// description written without one names the machine that `host` tuned records on.
std::string without_tuning(const std::string &halide_target);

// The instruction-set level a record may move within: "x86-avx512", "x86-avx2", "x86-sse",
// "arm-64"; empty for targets whose records never move (GPUs, HVX, other architectures).
std::string transfer_level(const std::string &halide_target);

// Adds, for every op signature `choices` has no record of, the best record of `files` measured
// on the nearest other machine at `target`'s level within `farthest`, re-signed for `target`.
void add_transferred_records(const std::vector<TuningDbFile> &files, const TargetDescription &target,
                             TuningChoices &choices, double farthest = schedules::kAlikeMachineDistance);

}  // namespace cortado
