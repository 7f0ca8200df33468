// The CLI's last line of defence: whatever a command throws becomes a message on stderr and an
// exit code, never an abort.
#pragma once

#include <functional>

namespace cortado {

// Runs `command` and returns its exit code. A UsageError gives 2; a CompileError (bad input: the
// message names the file:line or the layer) gives 1; anything else gives 3 as an internal error,
// including Halide's errors, which are not std::exceptions.
int run_reporting_errors(const std::function<int()> &command);

}  // namespace cortado
