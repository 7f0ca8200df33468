// Quotes one argument for /bin/sh, for the commands the compiler and the tests run (compilers,
// archivers, the cross-target checker): paths with spaces or quotes stay one argument.
#pragma once

#include <string>

namespace cortado {

inline std::string shell_quote(const std::string &text) {
    std::string out = "'";
    for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

}  // namespace cortado
