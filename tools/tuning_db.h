// The tuning database: one JSON object per line, one line per op signature, saying how that op
// is computed on one target and family:
//   {"op_signature": "9c0e4f2a1b3d5e6f", "op": "conv2d", "variant": "gpu_register_tile",
//    "knobs": {"rows": 8, "channels": 8}}
// `op_signature` is KernelInstance::op_signature_hash (cortado info --plan prints it); knobs
// left out come from the weaker sources (frontend/kernel_choice.h). Other keys are kept for
// the tuner and ignored here. A later line for the same signature replaces an earlier one, so
// records can be appended.
#pragma once

#include <string>

#include "frontend/kernel_plan.h"

namespace cortado {

// Throws CompileError naming FILE:LINE for unreadable files, malformed lines, unknown ops and
// knob values that are not whole numbers.
ChoiceOverrides read_tuning_db(const std::string &path);

}  // namespace cortado
