// Writes the two source files of a compiled network: the public C header (the stable API a user
// includes) and the glue translation unit (constant tables describing the plan, handed to the
// runtime).
#pragma once

#include <string>

#include "compiler/kernel_plan.h"

namespace cortado {

std::string emit_header(const NetworkPlan &plan);
std::string emit_glue(const NetworkPlan &plan);

// True when `name` can prefix C identifiers.
bool is_valid_network_name(const std::string &name);

}  // namespace cortado
