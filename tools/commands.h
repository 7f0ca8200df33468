// The cortado subcommands. Each takes its arguments after the subcommand name and returns the
// process exit code; errors are thrown as CompileError and printed by main.
#pragma once

#include <string>
#include <vector>

namespace cortado {

int command_info(const std::vector<std::string> &args);
int command_compile(const std::vector<std::string> &args);
int command_run(const std::vector<std::string> &args);
int command_bench(const std::vector<std::string> &args);
int command_tune(const std::vector<std::string> &args);
int command_quantize(const std::vector<std::string> &args);
int command_targets(const std::vector<std::string> &args);

// The network's name as a C identifier prefix: "GoogleNet" -> "googlenet".
std::string default_network_name(const std::string &graph_name);

}  // namespace cortado
