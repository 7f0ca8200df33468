#include "frontend/fusion.h"

#include <type_traits>

#include "frontend/affine_folding.h"

namespace cortado {

void merge_into_producers(Graph &graph, const std::function<bool(Layer &producer, const Layer &layer)> &absorb) {
    std::vector<int> readers(graph.values.size(), 0);
    for (const Layer &layer : graph.layers)
        for (int v : layer.inputs) readers[v]++;
    for (int v : graph.outputs) readers[v]++;  // the network's output is read by the caller

    std::vector<Layer> kept;
    for (Layer &layer : graph.layers) {
        Layer *producer = kept.empty() ? nullptr : &kept.back();
        if (producer && producer->outputs.size() == 1 && layer.inputs.size() == 1 &&
            producer->outputs[0] == layer.inputs[0] && readers[layer.inputs[0]] == 1 && absorb(*producer, layer)) {
            producer->outputs = layer.outputs;
            producer->fused_layers.push_back(layer.name);
            continue;
        }
        kept.push_back(std::move(layer));
    }
    graph.layers = std::move(kept);
}

void fuse_activations(Graph &graph) {
    merge_into_producers(graph, [&](Layer &producer, const Layer &layer) {
        const auto *relu = std::get_if<ReLUParams>(&layer.params);
        const auto *activation = std::get_if<ActivationParams>(&layer.params);
        if ((!relu && !activation) ||
            graph.values[layer.inputs[0]].blob_name != graph.values[layer.outputs[0]].blob_name)
            return false;
        return std::visit(
            [&](auto &p) {
                using P = std::decay_t<decltype(p)>;
                if constexpr (std::is_same_v<P, ConvolutionParams> || std::is_same_v<P, InnerProductParams> ||
                              std::is_same_v<P, BatchNormParams> || std::is_same_v<P, ScaleParams> ||
                              std::is_same_v<P, EltwiseParams>) {
                    // The epilogue's order: the ReLU, then the activation.
                    if (p.fused_activation || (relu && p.fused_relu)) return false;
                    if (activation) {
                        p.fused_activation = *activation;
                        return true;
                    }
                    p.fused_relu = true;
                    p.relu_negative_slope = relu->negative_slope;
                    return true;
                }
                return false;
            },
            producer.params);
    });
}

void concatenate_in_place(Graph &graph) {
    for (Layer &layer : graph.layers)
        if (auto *concat = std::get_if<ConcatParams>(&layer.params)) concat->in_place = true;
}

void fuse_layers(Graph &graph) {
    fold_affines(graph);
    fuse_activations(graph);
    concatenate_in_place(graph);
}

}  // namespace cortado
