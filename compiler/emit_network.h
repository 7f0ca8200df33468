// Writes the two source files of a compiled network: the public C header (the stable API a user
// includes) and the glue translation unit (constant tables describing the plan, handed to the
// runtime).
#pragma once

#include <string>

#include "compiler/kernel_plan.h"

namespace cortado {

// With `embedded_weights` (a caffemodel's path), the glue links that file's bytes into the
// library and both files gain NAME_create_embedded(). `single_image`: the same network planned
// at batch 1, for NAME_forward_batch below the compiled batch (runtime/network_runtime.h).
std::string emit_header(const NetworkPlan &plan, bool embedded_weights = false);
std::string emit_glue(const NetworkPlan &plan, const std::string &embedded_weights = "",
                      const NetworkPlan *single_image = nullptr);

// True when `name` can prefix C identifiers.
bool is_valid_network_name(const std::string &name);

}  // namespace cortado
