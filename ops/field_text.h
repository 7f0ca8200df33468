// The one text codec for op descriptors. A descriptor lists its fields once, in a
// `fields(visit)` member that calls visit("name", member) for each; from that list come the
// generator parameter the planner sends, the decoding in the generator, and the signatures
// that key tuning records and the kernel cache. Values print exactly (floats with 9 digits,
// enough to read back the same float), so a kernel compiled from decoded text is the kernel
// the planner meant.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cortado::ops {

inline std::string field_value(int v) { return std::to_string(v); }
inline std::string field_value(bool v) { return v ? "true" : "false"; }
inline std::string field_value(float v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}
inline std::string field_value(const std::string &v) { return v; }
template <typename T>
std::string field_value(const std::vector<T> &list) {
    std::string text;
    for (const T &v : list) text += (text.empty() ? "" : ",") + field_value(v);
    return text;
}

inline void parse_field(const std::string &text, int &v) {
    char *end = nullptr;
    errno = 0;
    const long parsed = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || parsed != static_cast<int>(parsed))
        throw std::invalid_argument("'" + text + "' is not a whole number");
    v = static_cast<int>(parsed);
}
inline void parse_field(const std::string &text, bool &v) {
    if (text != "true" && text != "false") throw std::invalid_argument("'" + text + "' is not true or false");
    v = text == "true";
}
inline void parse_field(const std::string &text, float &v) {
    char *end = nullptr;
    v = std::strtof(text.c_str(), &end);
    if (text.empty() || *end != '\0') throw std::invalid_argument("'" + text + "' is not a number");
}
inline void parse_field(const std::string &text, std::string &v) { v = text; }
template <typename T>
void parse_field(const std::string &text, std::vector<T> &list) {
    list.clear();
    size_t begin = 0;
    while (begin <= text.size() && !text.empty()) {
        const size_t comma = std::min(text.find(',', begin), text.size());
        T value{};
        parse_field(text.substr(begin, comma - begin), value);
        list.push_back(value);
        begin = comma + 1;
    }
}

// "name=value;name=value;..." in the order the descriptor lists its fields.
template <typename Descriptor>
std::string fields_text(const Descriptor &d) {
    std::string text;
    const_cast<Descriptor &>(d).fields([&](const char *name, const auto &member) {
        text += (text.empty() ? "" : ";") + std::string(name) + "=" + field_value(member);
    });
    return text;
}

// Reads text written by fields_text; every field must be present exactly once.
template <typename Descriptor>
Descriptor parse_fields(const std::string &text) {
    std::map<std::string, std::string> values;
    size_t begin = 0;
    while (begin < text.size()) {
        const size_t end = std::min(text.find(';', begin), text.size());
        const std::string item = text.substr(begin, end - begin);
        const size_t eq = item.find('=');
        if (eq == std::string::npos || !values.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
            throw std::invalid_argument("descriptor field '" + item + "' is malformed or repeated");
        begin = end + 1;
    }
    Descriptor d{};
    d.fields([&](const char *name, auto &member) {
        const auto it = values.find(name);
        if (it == values.end()) throw std::invalid_argument(std::string("descriptor has no field '") + name + "'");
        try {
            parse_field(it->second, member);
        } catch (const std::invalid_argument &e) {
            throw std::invalid_argument(std::string("descriptor field ") + name + ": " + e.what());
        }
        values.erase(it);
    });
    if (!values.empty()) throw std::invalid_argument("descriptor has an unknown field '" + values.begin()->first + "'");
    return d;
}

}  // namespace cortado::ops
