// JSON string literals for the files the tools write (graph descriptions, benchmark results):
// quotes, backslashes and control characters escaped, so any layer or blob name round-trips.
#pragma once

#include <cstdio>
#include <string>

namespace cortado {

inline std::string json_string(const std::string &text) {
    std::string out = "\"";
    for (unsigned char ch : text) {
        if (ch == '"' || ch == '\\') {
            out += '\\';
            out += char(ch);
        } else if (ch < 32) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", ch);
            out += escaped;
        } else {
            out += char(ch);
        }
    }
    return out + "\"";
}

}  // namespace cortado
