#include "compiler/kernel_choice.h"

#include <sstream>

#include "ops/field_text.h"
#include "schedules/families.h"

namespace cortado {

std::vector<std::string> op_names() {
    std::vector<std::string> names;
    schedules::families().begin()->second.for_each_op([&](const char *name, const auto &) { names.push_back(name); });
    return names;
}

std::map<std::string, ChoiceSettings> parse_knob_table(const std::string &text, const std::string &source) {
    std::map<std::string, ChoiceSettings> by_op;
    const std::vector<std::string> ops = op_names();
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty()) continue;
        const size_t dot = item.find('.'), eq = item.find('=');
        if (dot == std::string::npos || eq == std::string::npos || eq < dot)
            throw CompileError(source + ": '" + item + "' is not op.knob=value or op.variant=name");
        const std::string op = item.substr(0, dot), key = item.substr(dot + 1, eq - dot - 1),
                          value = item.substr(eq + 1);
        if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
            std::string known;
            for (const std::string &name : ops) known += (known.empty() ? "" : ", ") + name;
            throw CompileError(source + ": '" + item + "': no op '" + op + "'; the ops are " + known);
        }
        ChoiceSettings &settings = by_op[op];
        settings.source = source;
        if (key == "variant") {
            settings.variant = value;
            continue;
        }
        int number = 0;
        try {
            ops::parse_field(value, number);
        } catch (const std::invalid_argument &) {
            throw CompileError(source + ": '" + item + "': knob values are whole numbers");
        }
        // A later setting of the same knob wins.
        auto same =
            std::find_if(settings.knobs.begin(), settings.knobs.end(), [&](const auto &k) { return k.first == key; });
        if (same != settings.knobs.end()) same->second = number;
        else settings.knobs.emplace_back(key, number);
    }
    return by_op;
}

}  // namespace cortado
