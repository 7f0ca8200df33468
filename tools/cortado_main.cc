// cortado: compile Caffe networks into native libraries. `cortado help` for usage.
#include <algorithm>
#include <iostream>

#include "frontend/nearest_word.h"
#include "tools/cli_args.h"
#include "tools/cli_environment.h"
#include "tools/commands.h"
#include "tools/report_errors.h"
#include "tools/usage.h"

int main(int argc, char **argv) {
    using namespace cortado;
    const std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
    const std::string command = argc >= 2 ? argv[1] : "";
    const bool wants_help = std::find(args.begin(), args.end(), "--help") != args.end() ||
                            std::find(args.begin(), args.end(), "-h") != args.end();
    if (command.empty()) {
        std::cerr << general_usage();
        return 2;
    }
    if (command == "--help" || command == "-h") {
        std::cout << general_usage();
        return 0;
    }
    if (command == "--version") {
        std::cout << version_text();
        return 0;
    }
    if (command == "help") {
        if (args.empty()) {
            std::cout << general_usage();
            return 0;
        }
        if (command_usage(args[0]).empty()) {
            std::cerr << "cortado: error: no command '" << args[0] << "'\n" << general_usage();
            return 2;
        }
        std::cout << command_usage(args[0]);
        return 0;
    }
    if (wants_help && !command_usage(command).empty()) {
        std::cout << command_usage(command);
        return 0;
    }
    return run_reporting_errors([&] {
        apply_cli_environment();
        if (command == "info") return command_info(args);
        if (command == "compile") return command_compile(args);
        if (command == "run") return command_run(args);
        if (command == "bench") return command_bench(args);
        if (command == "tune") return command_tune(args);
        if (command == "quantize") return command_quantize(args);
        if (command == "targets") return command_targets(args);
        std::vector<std::string> words = command_names();
        words.insert(words.end(), {"--help", "--version"});
        const std::string near = nearest_word(command, words);
        throw UsageError("unknown command '" + command + "'" + (near.empty() ? "" : "; did you mean " + near + "?"));
    });
}
