// Whether a target's planner runs one convolution in int8 (ops/conv2d_int8.h) or in half precision
// (ops/conv2d_fp16.h), asked of the layer alone: a network of that one layer is planned, so the
// answer costs one small plan, and the reason is the planner's own (a variant's limits, a missing
// variant, a sum that could overflow).
#pragma once

#include <functional>
#include <string>

#include "compiler/plan_target.h"
#include "frontend/graph.h"

namespace cortado {

// Why `target` would not run convolution `layer` of `graph` (before fusion) in int8; empty when
// it would.
std::string int8_refusal(const Graph &graph, const Layer &layer, const PlanTarget &target);

// Why `target` would not run convolution `layer` of `graph` (before fusion) in half precision
// (ops/conv2d_fp16.h); empty when it would.
std::string fp16_refusal(const Graph &graph, const Layer &layer, const PlanTarget &target);

// The levels `target`'s int8 convolutions quantize weights to where the model does not give
// them as int8 (ImportOptions::int8_weight_levels): ops::kInt8PairSumLevels on x86 without VNNI,
// whose kernels sum byte products in pairs (schedules/cpu/conv2d_int8_space.h), else
// ops::kInt8WeightLevels.
int int8_weight_levels(const PlanTarget &target);

// int8_refusal bound to `target`: what ImportOptions::int8_refusal takes.
std::function<std::string(const Graph &, const Layer &)> int8_refusal_for(const PlanTarget &target);

// fp16_refusal bound to `target`: what ImportOptions::fp16_refusal takes.
std::function<std::string(const Graph &, const Layer &)> fp16_refusal_for(const PlanTarget &target);

}  // namespace cortado
