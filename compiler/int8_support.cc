#include "compiler/int8_support.h"

#include "compiler/kernel_plan.h"
#include "frontend/compile_error.h"
#include "frontend/fp16_precision.h"
#include "frontend/int8_precision.h"
#include "ops/conv2d_int8.h"
#include "schedules/cpu/conv2d_int8_space.h"

namespace cortado {

namespace {

// The planner's refusal of `layer` alone, marked by `mark`; empty when it plans.
template <typename Mark>
std::string refusal_alone(const Graph &graph, const Layer &layer, const PlanTarget &target, Mark mark) {
    const Value &in = graph.values[size_t(layer.inputs.at(0))];
    Graph trial;
    trial.name = graph.name;
    trial.inputs = {trial.add_value(in.blob_name, in.shape)};
    Layer alone = layer;
    alone.inputs = {trial.inputs[0]};
    const Value &out = graph.values[size_t(layer.outputs.at(0))];
    alone.outputs = trial.outputs = {trial.add_value(out.blob_name, out.shape)};
    mark(std::get<ConvolutionParams>(alone.params));
    trial.layers = {alone};
    try {
        plan_network(trial, trial.name, target);
    } catch (const CompileError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

std::string int8_refusal(const Graph &graph, const Layer &layer, const PlanTarget &target) {
    const auto &p = std::get<ConvolutionParams>(layer.params);
    if (std::string why = int8_unsupported_reason(p, graph.values[size_t(layer.inputs.at(0))].shape.at(1));
        !why.empty())
        return why;
    return refusal_alone(graph, layer, target, [](ConvolutionParams &q) {
        if (!q.int8_input) q.int8_input = Int8Input{};
    });
}

std::string fp16_refusal(const Graph &graph, const Layer &layer, const PlanTarget &target) {
    const auto &p = std::get<ConvolutionParams>(layer.params);
    if (std::string why = fp16_unsupported_reason(p, graph.values[size_t(layer.inputs.at(0))].shape.at(1));
        !why.empty())
        return why;
    return refusal_alone(graph, layer, target, [](ConvolutionParams &q) { q.fp16 = true; });
}

int int8_weight_levels(const PlanTarget &target) {
    return schedules::cpu::int8_sums_pairs(resolve_plan_target(target)) ? ops::kInt8PairSumLevels
                                                                        : ops::kInt8WeightLevels;
}

std::function<std::string(const Graph &, const Layer &)> int8_refusal_for(const PlanTarget &target) {
    return [target](const Graph &graph, const Layer &layer) { return int8_refusal(graph, layer, target); };
}

std::function<std::string(const Graph &, const Layer &)> fp16_refusal_for(const PlanTarget &target) {
    return [target](const Graph &graph, const Layer &layer) { return fp16_refusal(graph, layer, target); };
}

}  // namespace cortado
