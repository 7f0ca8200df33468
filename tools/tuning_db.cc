#include "tools/tuning_db.h"

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "frontend/compile_error.h"

namespace cortado {

ChoiceOverrides read_tuning_db(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw CompileError(path + ": cannot read the tuning database");
    const std::vector<std::string> ops = op_names();
    ChoiceOverrides records;
    int line_number = 0;
    for (std::string line; std::getline(in, line);) {
        line_number++;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = path + ":" + std::to_string(line_number);
        nlohmann::json record;
        try {
            record = nlohmann::json::parse(line);
        } catch (const nlohmann::json::parse_error &e) {
            throw CompileError(where + ": not a JSON object: " + e.what());
        }
        auto text = [&](const char *key, bool required) -> std::string {
            if (!record.is_object() || !record.contains(key)) {
                if (required) throw CompileError(where + ": the record has no \"" + key + "\"");
                return "";
            }
            if (!record[key].is_string()) throw CompileError(where + ": \"" + key + "\" must be a string");
            return record[key].get<std::string>();
        };
        const std::string signature = text("op_signature", true), op = text("op", true);
        if (std::find(ops.begin(), ops.end(), op) == ops.end()) throw CompileError(where + ": no op '" + op + "'");
        ChoiceSettings settings;
        settings.source = where;
        settings.op = op;
        settings.exact = true;
        settings.variant = text("variant", false);
        if (record.contains("knobs")) {
            if (!record["knobs"].is_object()) throw CompileError(where + ": \"knobs\" must be an object");
            for (const auto &[name, value] : record["knobs"].items()) {
                if (!value.is_number_integer())
                    throw CompileError(where + ": knob " + name + " must be a whole number, not " + value.dump());
                const auto number = value.get<long long>();
                if (number < INT32_MIN || number > INT32_MAX) throw CompileError(where + ": knob " + name + " is out of range");
                settings.knobs.emplace_back(name, static_cast<int>(number));
            }
        }
        records[signature] = settings;
    }
    return records;
}

}  // namespace cortado
