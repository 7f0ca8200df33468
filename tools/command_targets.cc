// `cortado targets`: the shipped target descriptions, one line each.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "compiler/install_layout.h"
#include "compiler/target_description.h"
#include "frontend/compile_error.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace cortado {

namespace {

// The first sentence of the description's first comment, which says what device it is.
std::string summary(const std::string &file) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("#", 0) != 0) continue;
        const size_t start = line.find_first_not_of("# ");
        if (start == std::string::npos) continue;
        const std::string text = line.substr(start);
        const size_t end = text.find(". ");
        return end == std::string::npos ? text : text.substr(0, end + 1);
    }
    return "";
}

}  // namespace

int command_targets(const std::vector<std::string> &args) {
    parse_cli_args(args, {}, {}, false);
    std::printf("%-18s %-7s %s\n", "target", "family", "description  [Halide target]");
    std::printf("%-18s %-7s %s\n", "host", "", "This machine's CPU, with every instruction set it has.");
    for (const std::string &name : target_description_names()) {
        try {
            const TargetDescription t = resolve_target(name);
            std::printf("%-18s %-7s %s  [%s]\n", name.c_str(), t.schedule_family.c_str(), summary(t.file).c_str(),
                        t.halide_target.c_str());
        } catch (const CompileError &e) {
            std::printf("%-18s %-7s (cannot be used here: %s)\n", name.c_str(), "", e.what());
        }
    }
    std::printf("Descriptions are in %s/targets; a path to a .target file of one's own works too.\n",
                data_dir().c_str());
    return 0;
}

}  // namespace cortado
