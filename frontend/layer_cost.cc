#include "frontend/layer_cost.h"

#include <type_traits>

namespace cortado {

LayerCost layer_cost(const Graph &graph, const Layer &layer) {
    LayerCost cost;
    int64_t in_elems = 0, out_elems = 0;
    for (int v : layer.inputs) in_elems += element_count(graph.values[v].shape);
    for (int v : layer.outputs) out_elems += element_count(graph.values[v].shape);
    for (const Shape &w : layer.weight_shapes) cost.parameters += element_count(w);
    const Shape &in0 = layer.inputs.empty() ? Shape{} : graph.values[layer.inputs[0]].shape;

    std::visit(
        [&](const auto &p) {
            using P = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<P, ConvolutionParams>) {
                const int64_t k = (in0[1] / p.group) * p.kernel_h * p.kernel_w;
                cost.flops = 2 * out_elems * k + (p.bias_term ? out_elems : 0) + (p.fused_sum ? out_elems : 0);
            } else if constexpr (std::is_same_v<P, DeconvolutionParams>) {
                // Each input element meets out_channels / group x kernel area weights.
                const int64_t k = (p.num_output / p.group) * p.kernel_h * p.kernel_w;
                cost.flops = 2 * in_elems * k + (p.bias_term ? out_elems : 0);
            } else if constexpr (std::is_same_v<P, InnerProductParams>) {
                // Per output row: 2*N*K multiply-adds plus N bias adds.
                const int64_t rows = out_elems / p.num_output;
                cost.flops = rows * (2 * cost.parameters - (p.bias_term ? p.num_output : 0));
            } else if constexpr (std::is_same_v<P, PoolingParams>) {
                const Shape &o = graph.values[layer.outputs[0]].shape;
                const int64_t window = p.global_pooling ? in0[2] * in0[3] : int64_t(p.kernel_h) * p.kernel_w;
                cost.flops = element_count(o) * window;
            } else if constexpr (std::is_same_v<P, LRNParams>) {
                cost.flops = out_elems * (2 * int64_t(p.local_size) + 4);
            } else if constexpr (std::is_same_v<P, SoftmaxParams>) {
                cost.flops = 4 * out_elems;
            } else if constexpr (std::is_same_v<P, EltwiseParams>) {
                cost.flops = out_elems * 2 * int64_t(layer.inputs.size() - 1);
            } else if constexpr (std::is_same_v<P, ActivationParams>) {
                // Clip: two comparisons; the others about an exponential (counted as two), an add, a divide.
                cost.flops = (p.function == ops::ActivationFunction::Clip ? 2 : 4) * out_elems;
            } else if constexpr (std::is_same_v<P, ReLUParams> || std::is_same_v<P, BatchNormParams> ||
                                 std::is_same_v<P, ScaleParams> || std::is_same_v<P, PReLUParams> ||
                                 std::is_same_v<P, BiasParams>) {
                cost.flops = 2 * out_elems;
            }
        },
        layer.params);

    const bool moves_data = cost.flops > 0 || std::holds_alternative<ConcatParams>(layer.params) ||
                            std::holds_alternative<PadParams>(layer.params) ||
                            std::holds_alternative<TransposeParams>(layer.params) ||
                            std::holds_alternative<CropParams>(layer.params) ||
                            std::holds_alternative<SliceParams>(layer.params) ||
                            std::holds_alternative<ExpandParams>(layer.params) ||
                            std::holds_alternative<ConstantParams>(layer.params) ||
                            std::holds_alternative<ResizeParams>(layer.params);
    if (moves_data) cost.bytes = 4 * (in_elems + out_elems + cost.parameters);
    return cost;
}

}  // namespace cortado
