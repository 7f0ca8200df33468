#include "tools/cli_environment.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace cortado {

namespace {

std::string variable(const char *name) {
    const char *value = std::getenv(name);
    return value ? value : "";
}

}  // namespace

const CliEnvironment &cli_environment() {
    static const CliEnvironment environment = [] {
        CliEnvironment e;
        e.host.kernel_cache_dir = variable("CORTADO_CACHE");
        e.host.install_prefix = variable("CORTADO_HOME");
        e.host.host_cxx = variable("CXX");
        e.host.cross_prefix = variable("CORTADO_CROSS_PREFIX");
        e.host.write_stmt = !variable("CORTADO_DEBUG_STMT").empty();
        e.host.write_assembly = !variable("CORTADO_DEBUG_ASM").empty();
        e.knobs = variable("CORTADO_KNOBS");
        e.layouts = variable("CORTADO_LAYOUTS");
        return e;
    }();
    return environment;
}

void apply_cli_environment() { set_host_settings(cli_environment().host); }

PlanOptions cli_plan_options(const ChoiceOverrides &records) {
    PlanOptions options;
    options.records = records;
    options.knobs = cli_environment().knobs;
    options.knobs_source = "CORTADO_KNOBS";
    if (!cli_environment().layouts.empty())
        options.layouts = parse_activation_layouts(cli_environment().layouts, "CORTADO_LAYOUTS");
    return options;
}

BuildOptions cli_build_options(const ChoiceOverrides &records, bool verbose) {
    static const int cpus = [] {
        cpu_set_t set;
        return ::sched_getaffinity(0, sizeof set, &set) == 0 ? std::max(1, CPU_COUNT(&set)) : 1;
    }();
    return BuildOptions(cli_plan_options(records), cpus, verbose);
}

BuildOptions cli_build_options_in_process(const ChoiceOverrides &records) {
    return BuildOptions(cli_plan_options(records));
}

}  // namespace cortado
