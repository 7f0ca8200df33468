// Every environment variable the CLI reads, read once: the library takes them only as values
// (HostSettings, PlanOptions). `cortado help` lists them (tools/usage.cc).
#pragma once

#include <string>

#include "compiler/host_settings.h"
#include "compiler/network_builder.h"
#include "compiler/plan_options.h"

namespace cortado {

struct CliEnvironment {
    HostSettings host;    // CORTADO_CACHE, CORTADO_HOME, CXX, CORTADO_CROSS_PREFIX, CORTADO_DEBUG_STMT/ASM
    std::string knobs;    // CORTADO_KNOBS
    std::string layouts;  // CORTADO_LAYOUTS; empty: the planner's default
};

const CliEnvironment &cli_environment();

// Reads the environment and hands HostSettings to the library: the first thing main does.
void apply_cli_environment();

// A command's plan options: the tuning records it loaded, CORTADO_KNOBS and CORTADO_LAYOUTS.
PlanOptions cli_plan_options(const ChoiceOverrides &records = {});

// A command's build options: its plan options, and as many kernels compiled at once as there
// are CPUs this process may run on.
BuildOptions cli_build_options(const ChoiceOverrides &records = {}, bool verbose = false);

// The same, compiling one kernel after another, for commands that build between runs of networks
// and peers: their thread pools may hold locks that a forked child would wait on forever.
BuildOptions cli_build_options_in_process(const ChoiceOverrides &records = {});

}  // namespace cortado
