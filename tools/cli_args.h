// Command-line parsing shared by the cortado subcommands: one positional argument (the
// prototxt), `--key value` options and `--flag` switches, all checked against what the
// subcommand accepts so a typo is an error, not a silently ignored option.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/compile_error.h"
#include "frontend/graph.h"

namespace cortado {

// A command line cortado cannot read (unknown option, missing value, stray argument): exit
// code 2, where bad input files and values give 1.
class UsageError : public CompileError {
  public:
    explicit UsageError(const std::string &message) : CompileError(message) {}
};

struct CliArgs {
    std::string positional;
    std::map<std::string, std::string> options;
    std::set<std::string> flags;

    bool has(const std::string &key) const { return options.count(key) > 0; }
    std::string get(const std::string &key, const std::string &fallback = "") const;
    int64_t get_int(const std::string &key, int64_t fallback) const;
    // A count: a whole number of at least `minimum` (a batch, iterations, jobs: 1; warm-up
    // runs: 0), else UsageError.
    int64_t get_count(const std::string &key, int64_t fallback, int64_t minimum = 1) const;
};

// `--key value` and `--key=value`. Throws UsageError on unknown options (naming the nearest
// known one), missing values or a missing positional argument (when `positional_required`).
CliArgs parse_cli_args(const std::vector<std::string> &args, const std::set<std::string> &options,
                       const std::set<std::string> &flags, bool positional_required = true);

// "1,3,224,224" or "1x3x224x224" (as cortado prints shapes) -> {1, 3, 224, 224}; throws
// UsageError on anything else.
Shape parse_shape(const std::string &text);

}  // namespace cortado
