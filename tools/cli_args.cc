#include "tools/cli_args.h"

#include <algorithm>
#include <sstream>

#include "frontend/nearest_word.h"

namespace cortado {
namespace {

int64_t parse_integer(const std::string &text, const std::string &what) {
    size_t used = 0;
    long long value = 0;
    try {
        value = std::stoll(text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != text.size() || text.empty()) throw UsageError(what + ": '" + text + "' is not an integer");
    return value;
}

}  // namespace

std::string CliArgs::get(const std::string &key, const std::string &fallback) const {
    auto it = options.find(key);
    return it == options.end() ? fallback : it->second;
}

int64_t CliArgs::get_int(const std::string &key, int64_t fallback) const {
    return has(key) ? parse_integer(get(key), "--" + key) : fallback;
}

int64_t CliArgs::get_count(const std::string &key, int64_t fallback, int64_t minimum) const {
    if (!has(key)) return fallback;
    const int64_t value = parse_integer(get(key), "--" + key);
    if (value < minimum)
        throw UsageError("--" + key + " takes a whole number of at least " + std::to_string(minimum) + ", not " +
                         get(key));
    return value;
}

CliArgs parse_cli_args(const std::vector<std::string> &args, const std::set<std::string> &options,
                       const std::set<std::string> &flags, bool positional_required) {
    CliArgs parsed;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        if (a.rfind("--", 0) == 0 || a == "-o") {
            const size_t equals = a.find('=');
            const std::string key =
                a == "-o" ? "output-dir" : a.substr(2, equals == std::string::npos ? equals : equals - 2);
            if (flags.count(key)) {
                if (equals != std::string::npos) throw UsageError("--" + key + " takes no value");
                parsed.flags.insert(key);
            } else if (options.count(key)) {
                if (equals != std::string::npos) {
                    parsed.options[key] = a.substr(equals + 1);
                } else {
                    if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
                    parsed.options[key] = args[++i];
                }
            } else {
                std::vector<std::string> known(options.begin(), options.end());
                known.insert(known.end(), flags.begin(), flags.end());
                const std::string near = nearest_word(key, known);
                throw UsageError("unknown option --" + key + (near.empty() ? "" : "; did you mean --" + near + "?"));
            }
        } else if (parsed.positional.empty()) {
            parsed.positional = a;
        } else {
            throw UsageError("unexpected argument '" + a + "'");
        }
    }
    if (parsed.positional.empty() && positional_required) throw UsageError("missing NET.prototxt");
    return parsed;
}

Shape parse_shape(const std::string &text) {
    Shape shape;
    std::string list = text;
    std::replace(list.begin(), list.end(), 'x', ',');
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) {
        const int64_t d = parse_integer(item, "shape '" + text + "'");
        if (d <= 0) throw UsageError("shape '" + text + "' has a dimension <= 0");
        shape.push_back(d);
    }
    if (shape.empty()) throw UsageError("empty shape");
    return shape;
}

}  // namespace cortado
