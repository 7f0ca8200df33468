// How a network is planned besides its target: the settings a caller passes explicitly. The
// library reads no environment variable; the CLI turns CORTADO_KNOBS and CORTADO_LAYOUTS into
// these once (tools/cli_environment.h).
#pragma once

#include <map>
#include <string>

#include "compiler/kernel_choice.h"

namespace cortado {

// Tuning records by op signature hash (KernelInstance::op_signature_hash), as read from a
// tuning database; each applies to every layer of that signature.
using ChoiceOverrides = std::map<std::string, ChoiceSettings>;

// Where activations between CPU convolutions may be stored channel-blocked (ops::Layout).
enum class ActivationLayouts { Blocked, Nchw };

struct PlanOptions {
    // Tuning records (compiler/tuning_db.h), second strongest of the sources (kernel_choice.h).
    ChoiceOverrides records;
    // "op.knob=value,op.variant=name,...": the strongest source, for experiments and tests;
    // `knobs_source` names it in errors and in `info --plan`.
    std::string knobs;
    std::string knobs_source = "knob overrides";
    // Blocked: where the planner's rule finds it pays (kernel_plan.cc); Nchw: never.
    ActivationLayouts layouts = ActivationLayouts::Blocked;
};

// "blocked" or "nchw" -> the value; throws CompileError naming `source` otherwise.
ActivationLayouts parse_activation_layouts(const std::string &text, const std::string &source);

}  // namespace cortado
