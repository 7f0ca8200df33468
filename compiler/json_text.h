// JSON as text for every file and report cortado writes. Layer and blob names come from the
// user's files and need not be UTF-8; invalid bytes become U+FFFD instead of an exception.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace cortado {

// indent -1: one line (tuning records); otherwise pretty-printed with that many spaces. Json is
// nlohmann::json or nlohmann::ordered_json.
template <typename Json>
std::string json_text(const Json &json, int indent = 1) {
    return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace cortado
