#include "frontend/affine_folding.h"

#include <type_traits>

#include "frontend/fusion.h"

namespace cortado {

bool as_fold(const Graph &graph, const Layer &layer, FoldedAffine *fold) {
    if (layer.inputs.size() != 1 || layer.outputs.size() != 1) return false;
    fold->layer = layer.name;
    fold->weight_shapes = layer.weight_shapes;
    if (const auto *bn = std::get_if<BatchNormParams>(&layer.params)) {
        fold->batch_norm = true;
        fold->eps = bn->eps;
        return true;
    }
    const auto *scale = std::get_if<ScaleParams>(&layer.params);
    if (!scale) return false;
    const int rank = int(graph.values[layer.inputs[0]].shape.size());
    const int axis = scale->axis < 0 ? scale->axis + rank : scale->axis;
    if (axis != 1 || scale->num_axes != 1) return false;
    fold->shift = scale->bias_term;
    fold->filler = scale->filler;
    fold->bias_filler = scale->bias_filler;
    return true;
}

void fold_affines(Graph &graph) {
    merge_into_producers(graph, [&](Layer &producer, const Layer &layer) {
        FoldedAffine fold;
        if (!as_fold(graph, layer, &fold)) return false;
        return std::visit(
            [&](auto &p) {
                using P = std::decay_t<decltype(p)>;
                constexpr bool conv = std::is_same_v<P, ConvolutionParams>;
                if constexpr (conv || std::is_same_v<P, InnerProductParams>) {
                    // An InnerProduct's channels are axis 1 only when its output has 2 axes.
                    bool channels_on_axis_1 = true;
                    if constexpr (!conv)
                        channels_on_axis_1 = !p.transpose_input && graph.values[producer.outputs[0]].shape.size() == 2;
                    if (p.fused_relu || p.fused_activation || !channels_on_axis_1) return false;
                    p.folded_affines.push_back(fold);
                    // Scaled, the model's int8 weights are no longer integers times these.
                    if constexpr (conv) p.int8_weight_scales.clear();
                    return true;
                }
                // A BatchNorm is a per-channel affine itself: the Scales after it join its map.
                if constexpr (std::is_same_v<P, BatchNormParams>) {
                    if (p.fused_relu || p.fused_activation || fold.batch_norm) return false;
                    p.folded_affines.push_back(fold);
                    return true;
                }
                return false;
            },
            producer.params);
    });
}

}  // namespace cortado
