// The tuning records a command plans with, from its `--db FILE`, `--untuned` and `--no-transfer`
// (compiler/tuning_db.h, compiler/record_transfer.h).
#pragma once

#include "compiler/target_description.h"
#include "compiler/tuning_db.h"
#include "tools/cli_args.h"

namespace cortado {

TuningChoices cli_tuning_choices(const CliArgs &cli, const TargetDescription &target);

}  // namespace cortado
