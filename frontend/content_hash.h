// A short, stable hash of text (64-bit FNV-1a as 16 hex digits): names content-addressed
// kernels and cache entries. Not for security.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace cortado {

inline std::string content_hash_hex(const std::string &text) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

}  // namespace cortado
