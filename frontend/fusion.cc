#include "frontend/fusion.h"

#include <algorithm>
#include <type_traits>

#include "frontend/affine_folding.h"
#include "ops/conv2d_pool.h"

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
            producer->fused_layers.insert(producer->fused_layers.end(), layer.fused_layers.begin(),
                                          layer.fused_layers.end());
            continue;
        }
        kept.push_back(std::move(layer));
    }
    graph.layers = std::move(kept);
}

namespace {

// Per value: how many layers read it (the network's output counts as one) and which layer
// writes it (-1: none, the network's input).
struct ValueUses {
    std::vector<int> readers, producer;
    explicit ValueUses(const Graph &graph) : readers(graph.values.size(), 0), producer(graph.values.size(), -1) {
        for (size_t i = 0; i < graph.layers.size(); i++) {
            for (int v : graph.layers[i].inputs) readers[v]++;
            for (int v : graph.layers[i].outputs) producer[v] = int(i);
        }
        for (int v : graph.outputs) readers[v]++;
    }
};

// The layer kinds whose kernels have an epilogue that activations can fuse into.
template <typename P>
constexpr bool kHasEpilogue =
    std::is_same_v<P, ConvolutionParams> || std::is_same_v<P, InnerProductParams> ||
    std::is_same_v<P, BatchNormParams> || std::is_same_v<P, ScaleParams> || std::is_same_v<P, EltwiseParams>;

// x times its own gate, Sigmoid(x) or HardSigmoid(x), becomes one Silu or HardSwish layer where
// the gate's layer was.
void fuse_gated_activations(Graph &graph) {
    ValueUses uses(graph);
    std::vector<int> &readers = uses.readers, &producer = uses.producer;
    std::vector<bool> gone(graph.layers.size(), false);
    for (size_t m = 0; m < graph.layers.size(); m++) {
        Layer &product = graph.layers[m];
        const auto *e = std::get_if<EltwiseParams>(&product.params);
        if (!e || e->operation != ops::EltwiseOperation::Product || product.inputs.size() != 2 || e->fused_relu ||
            e->fused_activation)
            continue;
        for (int side = 0; side < 2; side++) {
            const int gate = product.inputs[side], x = product.inputs[1 - side];
            if (producer[gate] < 0 || readers[gate] != 1) continue;
            Layer &gate_layer = graph.layers[size_t(producer[gate])];
            const auto *a = std::get_if<ActivationParams>(&gate_layer.params);
            if (!a || gate_layer.inputs.size() != 1 || gate_layer.inputs[0] != x) continue;
            ActivationParams gated = *a;
            if (a->function == ops::ActivationFunction::Sigmoid) gated.function = ops::ActivationFunction::Silu;
            else if (a->function == ops::ActivationFunction::HardSigmoid)
                gated.function = ops::ActivationFunction::HardSwish;
            else continue;
            // The gate's layer becomes x times its gate, writing the product's output; x loses a
            // reader. Where x's producer comes right before and fuse_activations will take the
            // result, it acts in place, as the importer makes activations do; elsewhere both
            // blobs keep their names.
            gate_layer.params = gated;
            gate_layer.type = gated.function == ops::ActivationFunction::Silu ? "Silu" : "HardSwish";
            gate_layer.outputs = product.outputs;
            gate_layer.fused_layers.push_back(product.name);
            for (int out : product.outputs) producer[out] = producer[gate];
            readers[x]--;
            const bool output =
                std::find(graph.outputs.begin(), graph.outputs.end(), product.outputs[0]) != graph.outputs.end();
            const int at = producer[gate];
            if (readers[x] == 1 && producer[x] >= 0 && producer[x] + 1 == at && !output &&
                takes_an_activation(graph.layers[size_t(producer[x])].params))
                graph.values[product.outputs[0]].blob_name = graph.values[x].blob_name;
            gone[m] = true;
            break;
        }
    }
    graph.drop_layers(gone);
}

}  // namespace

void scale_by_broadcast_products(Graph &graph) {
    ValueUses uses(graph);
    std::vector<int> &readers = uses.readers, &producer = uses.producer;
    for (Layer &product : graph.layers) {
        const auto *e = std::get_if<EltwiseParams>(&product.params);
        if (!e || e->operation != ops::EltwiseOperation::Product || product.inputs.size() != 2 ||
            product.outputs.size() != 1 || e->fused_relu || e->fused_activation)
            continue;
        for (int side = 0; side < 2; side++) {
            const int expanded = product.inputs[size_t(side)], x = product.inputs[size_t(1 - side)];
            if (producer[expanded] < 0 || readers[expanded] != 1) continue;
            Layer &expand = graph.layers[size_t(producer[expanded])];
            if (!std::holds_alternative<ExpandParams>(expand.params) || expand.inputs.size() != 1) continue;
            // The scale's axes, aligned with x's from the end: x's own on [a, k), 1 elsewhere.
            const Shape &xs = graph.values[x].shape, &given = graph.values[expand.inputs[0]].shape;
            if (given.size() > xs.size() || graph.values[expanded].shape != xs) continue;
            Shape ss(xs.size() - given.size(), 1);
            ss.insert(ss.end(), given.begin(), given.end());
            size_t a = 0, k = ss.size();
            while (a < k && ss[a] == 1) a++;
            while (k > a && ss[k - 1] == 1) k--;
            bool matches = a < k;
            for (size_t d = a; d < k && matches; d++) matches = ss[d] == xs[d];
            if (!matches) continue;
            // The Expand becomes a Reshape of the scale to x's axes [a, k) (storage shared, no
            // kernel), the product a Scale by it along those axes.
            const int scale = graph.add_value(graph.values[expanded].blob_name + "/as_scale",
                                              Shape(xs.begin() + long(a), xs.begin() + long(k)));
            ReshapeParams reshape;
            reshape.shape = graph.values[scale].shape;
            expand.type = "Reshape";
            expand.params = reshape;
            expand.outputs = {scale};
            ScaleParams by;
            by.axis = int(a), by.num_axes = int(k - a);
            product.type = "Scale";
            product.params = by;
            product.inputs = {x, scale};
            break;
        }
    }
}

void fuse_residual_sums(Graph &graph) {
    ValueUses uses(graph);
    std::vector<int> &readers = uses.readers, &producer = uses.producer;
    std::vector<bool> gone(graph.layers.size(), false);
    for (size_t m = 0; m < graph.layers.size(); m++) {
        Layer &sum = graph.layers[m];
        const auto *e = std::get_if<EltwiseParams>(&sum.params);
        if (!e || e->operation != ops::EltwiseOperation::Sum || sum.inputs.size() != 2 || sum.outputs.size() != 1 ||
            std::any_of(e->coeff.begin(), e->coeff.end(), [](float c) { return c != 1.0f; }))
            continue;
        // The operand a Convolution writes for this sum alone, with no activation of its own (the
        // epilogue adds before it activates); of two, the later, so the other lives least long.
        int side = -1;
        for (int s = 0; s < 2; s++) {
            const int v = sum.inputs[size_t(s)], at = producer[v];
            if (at < 0 || gone[size_t(at)] || readers[v] != 1) continue;
            const Layer &conv = graph.layers[size_t(at)];
            const auto *c = std::get_if<ConvolutionParams>(&conv.params);
            if (!c || c->fused_sum || c->fused_relu || c->fused_activation || conv.outputs.size() != 1) continue;
            if (side < 0 || at > producer[sum.inputs[size_t(side)]]) side = s;
        }
        if (side < 0) continue;
        const size_t at = size_t(producer[sum.inputs[size_t(side)]]);
        Layer conv = std::move(graph.layers[at]);
        gone[at] = true;
        auto &c = std::get<ConvolutionParams>(conv.params);
        c.fused_sum = true;
        c.fused_relu = e->fused_relu, c.relu_negative_slope = e->relu_negative_slope;
        c.fused_activation = e->fused_activation;
        conv.inputs.push_back(sum.inputs[size_t(1 - side)]);
        conv.outputs = sum.outputs;
        conv.fused_layers.push_back(sum.name);
        conv.fused_layers.insert(conv.fused_layers.end(), sum.fused_layers.begin(), sum.fused_layers.end());
        sum = std::move(conv);
        for (int v : sum.outputs) producer[v] = int(m);
    }
    graph.drop_layers(gone);
}

bool takes_an_activation(const LayerParams &params) {
    return std::visit(
        [](const auto &p) {
            if constexpr (kHasEpilogue<std::decay_t<decltype(p)>>) return !p.fused_activation.has_value();
            return false;
        },
        params);
}

void fuse_activations(Graph &graph) {
    fuse_gated_activations(graph);
    merge_into_producers(graph, [&](Layer &producer, const Layer &layer) {
        const auto *relu = std::get_if<ReLUParams>(&layer.params);
        const auto *activation = std::get_if<ActivationParams>(&layer.params);
        if ((!relu && !activation) ||
            graph.values[layer.inputs[0]].blob_name != graph.values[layer.outputs[0]].blob_name)
            return false;
        return std::visit(
            [&](auto &p) {
                if constexpr (kHasEpilogue<std::decay_t<decltype(p)>>) {
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

void merge_empty_pads(Graph &graph) {
    merge_into_producers(graph, [](Layer &, const Layer &layer) {
        const auto *p = std::get_if<PadParams>(&layer.params);
        return p && p->top == 0 && p->left == 0 && p->bottom == 0 && p->right == 0;
    });
}

void fuse_max_poolings(Graph &graph) {
    const ValueUses uses(graph);
    for (size_t i = 0; i + 1 < graph.layers.size(); i++) {
        Layer &conv = graph.layers[i];
        const Layer &next = graph.layers[i + 1];
        auto *c = std::get_if<ConvolutionParams>(&conv.params);
        const auto *p = std::get_if<PoolingParams>(&next.params);
        if (!c || !p || c->fused_sum || c->int8_input || c->fp16 || p->method != PoolingParams::Method::Max ||
            p->global_pooling || conv.outputs.size() != 1 || next.inputs.size() != 1 ||
            next.inputs[0] != conv.outputs[0] || uses.readers[conv.outputs[0]] != 1)
            continue;
        const Shape &in = graph.values[next.inputs[0]].shape, &out = graph.values[next.outputs[0]].shape;
        if (in.size() == 4 && out.size() == 4)
            c->pooling_follows = ops::fusable_max_pooling(pooling_shape(*p, in, out));
    }
}

void concatenate_in_place(Graph &graph) {
    for (Layer &layer : graph.layers)
        if (auto *concat = std::get_if<ConcatParams>(&layer.params)) concat->in_place = true;
}

void fuse_layers(Graph &graph) {
    merge_empty_pads(graph);
    fold_affines(graph);
    scale_by_broadcast_products(graph);
    fuse_activations(graph);
    fuse_residual_sums(graph);
    fuse_max_poolings(graph);
    concatenate_in_place(graph);
}

}  // namespace cortado
