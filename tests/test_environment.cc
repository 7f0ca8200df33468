// The test programs take the CLI's environment (CORTADO_CACHE, set per build tree by ctest,
// CORTADO_HOME, CXX, ...) as the CLI does, before any test runs.
#include "tools/cli_environment.h"

namespace {

const bool applied = [] {
    cortado::apply_cli_environment();
    return true;
}();

}  // namespace
