#include "tools/cli_args.h"

#include <sstream>

#include "frontend/compile_error.h"

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
    if (used != text.size() || text.empty()) throw CompileError(what + ": '" + text + "' is not an integer");
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

CliArgs parse_cli_args(const std::vector<std::string> &args, const std::set<std::string> &options,
                       const std::set<std::string> &flags, bool positional_required) {
    CliArgs parsed;
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        if (a.rfind("--", 0) == 0 || a == "-o") {
            const std::string key = a == "-o" ? "output-dir" : a.substr(2);
            if (flags.count(key)) {
                parsed.flags.insert(key);
            } else if (options.count(key)) {
                if (i + 1 >= args.size()) throw CompileError(a + " needs a value");
                parsed.options[key] = args[++i];
            } else {
                throw CompileError("unknown option " + a);
            }
        } else if (parsed.positional.empty()) {
            parsed.positional = a;
        } else {
            throw CompileError("unexpected argument '" + a + "'");
        }
    }
    if (parsed.positional.empty() && positional_required) throw CompileError("missing NET.prototxt");
    return parsed;
}

Shape parse_shape(const std::string &text) {
    Shape shape;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        const int64_t d = parse_integer(item, "shape '" + text + "'");
        if (d <= 0) throw CompileError("shape '" + text + "' has a dimension <= 0");
        shape.push_back(d);
    }
    if (shape.empty()) throw CompileError("empty shape");
    return shape;
}

}  // namespace cortado
