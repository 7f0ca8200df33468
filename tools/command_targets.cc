// `cortado targets`: the shipped target descriptions, one line each.
#include <algorithm>
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

// The first sentence of the description's opening comment, which says what device it is; the
// sentence may run over several comment lines.
std::string summary(const std::string &file) {
    std::ifstream in(file);
    std::string text;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("#", 0) != 0) {
            if (text.empty()) continue;
            break;
        }
        const size_t start = line.find_first_not_of("# ");
        if (start == std::string::npos) {  // a bare "#" ends the opening paragraph
            if (text.empty()) continue;
            break;
        }
        text += (text.empty() ? "" : " ") + line.substr(start);
        const size_t end = text.find(". ");
        if (end != std::string::npos) return text.substr(0, end + 1);
    }
    return text;
}

}  // namespace

int command_targets(const std::vector<std::string> &args) {
    parse_cli_args(args, {}, {}, false);
    const std::vector<std::string> names = target_description_names();
    int width = 6;
    for (const std::string &name : names) width = std::max(width, int(name.size()));
    const auto row = [&](const std::string &name, const std::string &family, const std::string &text) {
        std::printf("%-*s  %-7s %s\n", width, name.c_str(), family.c_str(), text.c_str());
    };
    row("target", "family", "description  [Halide target]");
    row("host", "", "This machine's CPU, with every instruction set it has.");
    for (const std::string &name : names) {
        try {
            const TargetDescription t = resolve_target(name);
            row(name, t.schedule_family, summary(t.file) + "  [" + t.halide_target + "]");
        } catch (const CompileError &e) {
            row(name, "", std::string("(cannot be used here: ") + e.what() + ")");
        }
    }
    std::printf("Descriptions are in %s/targets; a path to a .target file of one's own works too.\n",
                data_dir().c_str());
    return 0;
}

}  // namespace cortado
