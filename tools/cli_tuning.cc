#include "tools/cli_tuning.h"

namespace cortado {

TuningChoices cli_tuning_choices(const CliArgs &cli, const TargetDescription &target) {
    return load_tuning_choices(cli.get("db"), cli.flags.count("untuned") > 0,
                               cli.flags.count("no-transfer") ? nullptr : &target);
}

}  // namespace cortado
