#include "frontend/fp16_precision.h"

#include "frontend/compile_error.h"

namespace cortado {

std::string fp16_unsupported_reason(const ConvolutionParams &p, int64_t in_channels) {
    if (p.group > 1 && in_channels / p.group < 2) return "depthwise (one input channel per group)";
    return "";
}

void apply_fp16_precision(Graph &graph, const std::string &source,
                          const std::function<std::string(const Graph &, const Layer &)> &refusal) {
    std::string first_refusal;
    bool any = false;
    for (Layer &layer : graph.layers) {
        auto *p = std::get_if<ConvolutionParams>(&layer.params);
        if (!p || p->int8_input) continue;
        const int64_t in_channels = graph.values[size_t(layer.inputs.at(0))].shape.at(1);
        std::string why = fp16_unsupported_reason(*p, in_channels);
        if (why.empty() && refusal) why = refusal(graph, layer);
        if (!why.empty()) {
            if (first_refusal.empty()) first_refusal = "layer '" + layer.name + "': " + why;
            continue;
        }
        p->fp16 = true;
        any = true;
    }
    if (!any)
        throw CompileError(source + ": --precision fp16 found no convolution to run in half precision" +
                           (first_refusal.empty() ? std::string(" (the network has none)") : "; " + first_refusal));
}

}  // namespace cortado
