#include "compiler/int8_support.h"

#include "compiler/kernel_plan.h"
#include "frontend/compile_error.h"
#include "frontend/int8_precision.h"

namespace cortado {

std::string int8_refusal(const Graph &graph, const Layer &layer, const PlanTarget &target) {
    const auto &p = std::get<ConvolutionParams>(layer.params);
    const Value &in = graph.values[size_t(layer.inputs.at(0))];
    if (std::string why = int8_unsupported_reason(p, in.shape.at(1)); !why.empty()) return why;
    Graph trial;
    trial.name = graph.name;
    trial.inputs = {trial.add_value(in.blob_name, in.shape)};
    Layer alone = layer;
    alone.inputs = {trial.inputs[0]};
    const Value &out = graph.values[size_t(layer.outputs.at(0))];
    alone.outputs = trial.outputs = {trial.add_value(out.blob_name, out.shape)};
    auto &q = std::get<ConvolutionParams>(alone.params);
    if (!q.int8_input) q.int8_input = Int8Input{};
    trial.layers = {alone};
    try {
        plan_network(trial, trial.name, target);
    } catch (const CompileError &e) {
        return e.what();
    }
    return "";
}

}  // namespace cortado
