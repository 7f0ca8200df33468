#include "frontend/fusion.h"

#include <type_traits>

namespace cortado {

void fuse_activations(Graph &graph) {
    std::vector<int> readers(graph.values.size(), 0);
    for (const Layer &layer : graph.layers)
        for (int v : layer.inputs) readers[v]++;

    std::vector<Layer> fused;
    for (Layer &layer : graph.layers) {
        const auto *relu = std::get_if<ReLUParams>(&layer.params);
        Layer *producer = fused.empty() ? nullptr : &fused.back();
        const bool fusable = relu && producer && producer->outputs.size() == 1 &&
                             producer->outputs[0] == layer.inputs[0] && readers[layer.inputs[0]] == 1 &&
                             graph.values[layer.inputs[0]].blob_name == graph.values[layer.outputs[0]].blob_name;
        bool done = false;
        if (fusable) {
            std::visit(
                [&](auto &p) {
                    using P = std::decay_t<decltype(p)>;
                    if constexpr (std::is_same_v<P, ConvolutionParams> || std::is_same_v<P, InnerProductParams>) {
                        if (!p.fused_relu) {
                            p.fused_relu = true;
                            p.relu_negative_slope = relu->negative_slope;
                            producer->outputs = layer.outputs;
                            producer->fused_layers.push_back(layer.name);
                            done = true;
                        }
                    }
                },
                producer->params);
        }
        if (!done) fused.push_back(std::move(layer));
    }
    graph.layers = std::move(fused);
}

}  // namespace cortado
