#include "compiler/tuner/tune_layers.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "compiler/tuner/candidate_search.h"
#include "frontend/compile_error.h"

namespace cortado {

namespace {

bool has_choices(const std::string &family, const std::string &op) {
    const std::vector<VariantDomain> variants = variant_domains(family, op);
    return variants.size() > 1 || (variants.size() == 1 && !variants[0].knobs.empty());
}

// A 1x1 convolution that keeps the channels of `from` (N, C, H, W), with Xavier weights so that
// the reference check still sees every input channel.
Layer channel_mixer(Graph &g, const std::string &name, int from) {
    const Shape shape = g.values[from].shape;
    ConvolutionParams p;
    p.num_output = int(shape[1]);
    p.kernel_h = p.kernel_w = 1;
    p.weight_filler.type = "xavier";
    p.weight_filler.given = true;
    p.bias_filler.given = true;
    Layer mixer;
    mixer.name = name;
    mixer.type = "Convolution";
    mixer.inputs = {from};
    mixer.outputs = {g.add_value(name, shape)};
    mixer.weight_shapes = {{shape[1], shape[1], 1, 1}, {shape[1]}};
    mixer.params = p;
    return mixer;
}

// A 1x1 MAX pooling of `from`: an identity that reads channel blocks at any map size (a 1x1
// convolution there would have pixels in the lanes, or read NCHW where blocked planes alias).
Layer identity_pooling(Graph &g, const std::string &name, int from) {
    PoolingParams p;
    p.kernel_h = p.kernel_w = 1;
    Layer pooling;
    pooling.name = name;
    pooling.type = "Pooling";
    pooling.inputs = {from};
    pooling.outputs = {g.add_value(name, g.values[from].shape)};
    pooling.params = p;
    return pooling;
}

// The layer alone, after a channel mixer where the network reads its input in blocks and before
// an identity pooling where it writes its output in blocks: the planner blocks the tensors between
// them where the layer's variant takes blocks, as the network's neighbours do.
Graph one_layer_graph(const Graph &fused, const Layer &layer, bool blocked_in, bool blocked_out) {
    Graph g;
    g.name = "tune";
    const Value &in = fused.values[layer.inputs[0]];
    g.inputs = {g.add_value(in.blob_name, in.shape)};
    Layer copy = layer;
    copy.inputs = g.inputs;
    if (blocked_in) {
        g.layers.push_back(channel_mixer(g, "tune_before_" + layer.name, g.inputs[0]));
        copy.inputs = g.layers.back().outputs;
    }
    copy.outputs.clear();
    for (int o : layer.outputs) copy.outputs.push_back(g.add_value(fused.values[o].blob_name, fused.values[o].shape));
    g.layers.push_back(copy);
    g.outputs = copy.outputs;
    if (blocked_out) {
        g.layers.push_back(identity_pooling(g, "tune_after_" + layer.name, copy.outputs[0]));
        g.outputs = g.layers.back().outputs;
    }
    return g;
}

// A convolution and the MAX pooling after it, alone: the pair a conv2d_pool signature runs, fused
// or as its two steps (ConvolutionParams::pooling_follows marks it for the planner). Layers
// between them in `fused` (a BatchNorm that compile folds) are left out, as the signature does.
Graph pair_graph(const Graph &fused, const Layer &conv, const Layer &pool) {
    Graph g;
    g.name = "tune";
    const Value &in = fused.values[conv.inputs[0]];
    g.inputs = {g.add_value(in.blob_name, in.shape)};
    Layer c = conv, p = pool;
    std::get<ConvolutionParams>(c.params).pooling_follows = true;
    c.inputs = g.inputs;
    const Value &between = fused.values[pool.inputs[0]], &out = fused.values[pool.outputs[0]];
    c.outputs = {g.add_value(between.blob_name, between.shape)};
    p.inputs = c.outputs;
    p.outputs = {g.add_value(out.blob_name, out.shape)};
    g.layers = {c, p};
    g.outputs = p.outputs;
    return g;
}

const Layer *layer_named(const Graph &graph, const std::string &name) {
    const auto layer =
        std::find_if(graph.layers.begin(), graph.layers.end(), [&](const Layer &l) { return l.name == name; });
    return layer == graph.layers.end() ? nullptr : &*layer;
}

// The pooling among a fused step's layers ("conv1+relu1+pool1").
std::string pooling_in_step(const Graph &fused, const std::string &step) {
    for (size_t begin = 0; begin < step.size();) {
        const size_t end = std::min(step.find('+', begin), step.size());
        const std::string name = step.substr(begin, end - begin);
        if (const Layer *l = layer_named(fused, name); l && std::holds_alternative<PoolingParams>(l->params))
            return name;
        begin = end + 1;
    }
    return "";
}

// The conv2d_pool signatures of `compiled`: its fused steps and the pairs it ran apart. Each
// pair is measured as a network of its own, whole, so `unfused` times the two steps.
void add_conv_pool_pairs(const Graph &fused, const NetworkPlan &compiled, std::vector<TuneLayer> &layers,
                         std::map<std::string, size_t> &index) {
    struct Pair {
        std::string step, pooling;
        KernelInstance choice;
    };
    std::vector<Pair> pairs;
    for (const PlannedStep &step : compiled.steps)
        if (step.kernel >= 0 && compiled.kernels[step.kernel].op == ops::Conv2dPoolShape::kOp)
            pairs.push_back({step.layer, pooling_in_step(fused, step.layer), compiled.kernels[step.kernel]});
    for (const UnfusedPair &pair : compiled.unfused_pairs)
        pairs.push_back(
            {pair.conv_step + "+" + pair.pool_step, pair.pool_step.substr(0, pair.pool_step.find('+')), pair.choice});
    for (const Pair &pair : pairs) {
        const std::string signature = pair.choice.op_signature_hash();
        if (index.count(signature)) {
            if (index[signature] != SIZE_MAX) layers[index[signature]].steps.push_back(pair.step);
            continue;
        }
        index[signature] = SIZE_MAX;
        if (!has_choices(compiled.family, pair.choice.op)) continue;
        const Layer *conv = layer_named(fused, pair.step.substr(0, pair.step.find('+')));
        const Layer *pooling = layer_named(fused, pair.pooling);
        if (!conv || !pooling || !std::holds_alternative<ConvolutionParams>(conv->params) ||
            pooling->inputs.size() != 1)
            continue;
        index[signature] = layers.size();
        layers.push_back({signature, pair.choice, {pair.step}, pair_graph(fused, *conv, *pooling), "", {}});
    }
}

}  // namespace

std::vector<TuneLayer> tune_layers(const Graph &fused, const NetworkPlan &plan, std::vector<std::string> *skipped,
                                   const NetworkPlan *compiled) {
    std::vector<TuneLayer> layers;
    std::map<std::string, size_t> index;
    for (const PlannedStep &step : plan.steps) {
        if (step.kernel < 0) continue;
        const KernelInstance &k = plan.kernels[step.kernel];
        const std::string signature = k.op_signature_hash();
        if (index.count(signature)) {
            if (index[signature] != SIZE_MAX) layers[index[signature]].steps.push_back(step.layer);
            continue;
        }
        index[signature] = SIZE_MAX;
        if (!has_choices(plan.family, k.op)) continue;  // nothing to choose: not worth a note
        const std::string name = step.layer.substr(0, step.layer.find('+'));
        const auto layer =
            std::find_if(fused.layers.begin(), fused.layers.end(), [&](const Layer &l) { return l.name == name; });
        if (layer == fused.layers.end() || layer->inputs.size() != 1 || layer->outputs.size() != 1) {
            skipped->push_back(step.layer + " (" + k.op +
                               "): its layer does not run alone (several inputs or outputs)");
            continue;
        }
        index[signature] = layers.size();
        KernelInstance network = k;
        if (compiled)
            for (const KernelInstance &c : compiled->kernels)
                if (c.op_signature_hash() == signature) {
                    network.choice.variant = c.choice.variant;
                    network.variant_source = c.variant_source;
                    network.choice.layout_in = c.choice.layout_in;
                    network.choice.layout_out = c.choice.layout_out;
                    break;
                }
        const bool in = network.choice.layout_in.blocked(), out = network.choice.layout_out.blocked();
        layers.push_back({signature,
                          network,
                          {step.layer},
                          one_layer_graph(fused, *layer, in, out),
                          in || out ? step.layer : "",
                          {}});
    }
    add_conv_pool_pairs(fused, compiled ? *compiled : plan, layers, index);
    return layers;
}

PlanOptions candidate_plan_options(const TuneLayer &layer, const PlanOptions &options, const ChoiceSettings &settings) {
    PlanOptions candidate = options;
    candidate.records = layer.neighbours;
    candidate.records[layer.signature] = settings;
    ChoiceSettings &record = candidate.records[layer.signature];
    record.source = "candidate";
    // The default choice of a blocked layer is the variant the network runs, which the layout
    // rule may have moved it to; a record without one would stop that move.
    if (layer.blocked() && record.variant.empty()) record.variant = layer.default_kernel.choice.variant;
    return candidate;
}

const KernelInstance *layer_kernel(const TuneLayer &layer, const NetworkPlan &plan) {
    for (const PlannedStep &step : plan.steps) {
        if (step.kernel < 0 || (!layer.timed_step.empty() && step.layer != layer.timed_step)) continue;
        const KernelInstance &k = plan.kernels[step.kernel];
        if (k.op_signature_hash() == layer.signature) return &k;
    }
    for (const UnfusedPair &pair : plan.unfused_pairs)
        if (pair.choice.op_signature_hash() == layer.signature) return &pair.choice;
    return nullptr;
}

std::string layout_mismatch(const TuneLayer &layer, const KernelInstance &kernel) {
    const ops::Choice &c = kernel.choice, &network = layer.default_kernel.choice;
    if (!layer.blocked() || (c.layout_in == network.layout_in && c.layout_out == network.layout_out)) return "";
    return "it reads " + ops::field_value(c.layout_in) + " and writes " + ops::field_value(c.layout_out) +
           ", where the network has " + ops::field_value(network.layout_in) + " and " +
           ops::field_value(network.layout_out);
}

std::optional<KernelInstance> resolve_candidate(const TuneLayer &layer, const PlanTarget &target,
                                                const PlanOptions &options, const ChoiceSettings &settings,
                                                std::string *why) {
    try {
        const NetworkPlan plan =
            plan_network(layer.graph, "net", target, candidate_plan_options(layer, options, settings));
        const KernelInstance *k = layer_kernel(layer, plan);
        if (!k) {
            *why = "the plan has no kernel of the signature";
            return std::nullopt;
        }
        *why = layout_mismatch(layer, *k);
        if (!why->empty()) return std::nullopt;
        return *k;
    } catch (const CompileError &e) {
        *why = e.what();
    }
    return std::nullopt;
}

}  // namespace cortado
