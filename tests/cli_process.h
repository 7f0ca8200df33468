// Running the built `cortado` binary from a test, as a user's shell would.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace cortado::testing {

struct Result {
    int exit_code;
    std::string output;  // stdout and stderr together
};

// A shell command line, its stdout and stderr together.
inline Result shell(const std::string &command) {
    FILE *pipe = popen((command + " 2>&1").c_str(), "r");
    std::string output;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = pclose(pipe);
    // A crash is never a success: a command killed by a signal reads as 128 + the signal.
    return Result{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0), output};
}

// `environment` is prefixed to the command line ("NAME=value ...").
inline Result cortado(const std::string &args, const std::string &environment = "") {
    return shell(environment + (environment.empty() ? "" : " ") + CORTADO_BINARY + " " + args);
}

#ifdef CORTADO_WRONG_VARIANT_BINARY
// The CLI with tests/wrong_variant.cc's deliberately wrong variant registered.
inline Result cortado_with_wrong_variant(const std::string &args, const std::string &environment = "") {
    return shell(environment + (environment.empty() ? "" : " ") + CORTADO_WRONG_VARIANT_BINARY + " " + args);
}
#endif

}  // namespace cortado::testing
