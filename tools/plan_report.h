// `cortado info NET --plan`: per step of the plan, the op, the kernel signature hash (the
// kernel's function name), the op signature hash (what tuning records key on), the variant,
// each knob with where it came from, which steps share the kernel, and the family-wide settings
// a step did not take.
#pragma once

#include <string>

#include "compiler/kernel_plan.h"

namespace cortado {

std::string plan_report(const NetworkPlan &plan, const std::string &target_name);

}  // namespace cortado
