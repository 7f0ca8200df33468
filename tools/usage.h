// What `cortado help [COMMAND]`, `cortado COMMAND --help` and `cortado --version` print: the
// commands, each command's options grouped by topic, the environment variables and exit codes.
#pragma once

#include <string>
#include <vector>

namespace cortado {

std::vector<std::string> command_names();

// The overview: commands, environment variables, exit codes.
std::string general_usage();

// One command's options by topic; "" for an unknown command.
std::string command_usage(const std::string &command);

// cortado's version (and `git describe` of the checkout it was built from), Halide's version and
// the host target.
std::string version_text();

}  // namespace cortado
