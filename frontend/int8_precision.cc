#include "frontend/int8_precision.h"

#include <cmath>
#include <optional>
#include <set>

#include "frontend/compile_error.h"
#include "ops/conv2d_int8.h"

namespace cortado {

bool int8_scale_usable(float scale) { return scale > 0 && std::isfinite(scale) && std::isfinite(1.0f / scale); }

std::string int8_unsupported_reason(const ConvolutionParams &p, int64_t in_channels) {
    if (p.group > 1 && in_channels / p.group < 2) return "depthwise (one input channel per group)";
    return "";
}

namespace {

// The int8 input a convolution reading `q`'s output takes; none unless `q` quantizes to 256 levels.
std::optional<Int8Input> int8_input_of(const ActivationParams &q) {
    if (q.function != ops::ActivationFunction::Quantize || q.max - q.min != 255.0f || !int8_scale_usable(q.alpha))
        return std::nullopt;
    // A signed type's levels are the unsigned ones less 128: the same integers, shifted.
    return Int8Input{q.alpha, int(q.beta - q.min), ""};
}

// Whether every weight the model gives `layer` as int8 (its scales in `p`) quantizes to itself
// at `levels` (ops::quantize_weight clamps nothing): then the kernels for fewer levels multiply
// the model's own integers (as onnxruntime's quantize_static writes them with reduce_range, in
// -64..64, for CPUs without VNNI).
bool model_weights_within(const Graph &graph, const Layer &layer, const ConvolutionParams &p, int levels) {
    if (!graph.weights) return false;
    for (const LayerWeights &w : *graph.weights) {
        if (w.layer != layer.name || w.blobs.empty()) continue;
        const std::vector<float> &blob = w.blobs[0];
        const size_t per_output = blob.size() / p.int8_weight_scales.size();
        for (size_t i = 0; i < blob.size(); i++) {
            const float scale = p.int8_weight_scales[i / per_output], level = std::nearbyint(blob[i] / scale);
            if (!(std::abs(level) <= 127) || ops::quantize_weight(blob[i], scale, levels) != int(level)) return false;
        }
        return true;
    }
    return false;
}

// Marks `layer` int8 with `input`, its weights at `weight_levels` unless the model's own int8
// weights need more.
void mark_int8(const Graph &graph, const Layer &layer, ConvolutionParams &p, const Int8Input &input,
               int weight_levels) {
    p.int8_input = input;
    if (p.int8_weight_scales.empty() || model_weights_within(graph, layer, p, weight_levels))
        p.int8_input->weight_levels = weight_levels;
}

}  // namespace

void apply_model_int8_precision(Graph &graph, const std::string &source,
                                const std::function<std::string(const Graph &, const Layer &)> &refusal,
                                int weight_levels) {
    std::vector<int> producer(graph.values.size(), -1), readers(graph.values.size(), 0), int8_readers = readers;
    for (size_t i = 0; i < graph.layers.size(); i++) {
        for (int v : graph.layers[i].outputs) producer[size_t(v)] = int(i);
        for (int v : graph.layers[i].inputs) readers[size_t(v)]++;
    }
    for (int v : graph.outputs) readers[size_t(v)]++;
    bool any = false;
    for (Layer &layer : graph.layers) {
        auto *p = std::get_if<ConvolutionParams>(&layer.params);
        if (!p || p->int8_input || layer.inputs.size() != 1) continue;
        const int in = layer.inputs[0], from = producer[size_t(in)];
        const auto *q = from < 0 ? nullptr : std::get_if<ActivationParams>(&graph.layers[size_t(from)].params);
        const std::optional<Int8Input> input = q ? int8_input_of(*q) : std::nullopt;
        if (!input) continue;
        any = true;
        const std::string why =
            refusal ? refusal(graph, layer) : int8_unsupported_reason(*p, graph.values[size_t(in)].shape.at(1));
        if (!why.empty()) continue;
        mark_int8(graph, layer, *p, *input, weight_levels);
        int8_readers[size_t(in)]++;
    }
    if (!any)
        throw CompileError(source +
                           ": --precision int8 without --qparams runs a quantized model's own quantization, and "
                           "no convolution of this network reads a QuantizeLinear (to uint8 or int8); calibrate "
                           "it with `cortado quantize` and give --qparams");
    // A Quantize activation only int8 convolutions read goes; they read its input instead.
    std::vector<bool> gone(graph.layers.size(), false);
    std::vector<int> reads_instead(graph.values.size(), -1);
    for (size_t i = 0; i < graph.layers.size(); i++) {
        const Layer &q = graph.layers[i];
        const auto *a = std::get_if<ActivationParams>(&q.params);
        if (!a || a->function != ops::ActivationFunction::Quantize || q.outputs.size() != 1) continue;
        const int out = q.outputs[0];
        if (readers[size_t(out)] == 0 || readers[size_t(out)] != int8_readers[size_t(out)]) continue;
        gone[i] = true;
        reads_instead[size_t(out)] = q.inputs[0];
    }
    graph.drop_layers(gone);
    for (Layer &layer : graph.layers) {
        auto *p = std::get_if<ConvolutionParams>(&layer.params);
        if (!p || !p->int8_input) continue;
        if (const int instead = reads_instead[size_t(layer.inputs[0])]; instead >= 0) layer.inputs[0] = instead;
        if (p->int8_input->input_blob.empty())
            p->int8_input->input_blob = graph.values[size_t(layer.inputs[0])].blob_name;
    }
}

void apply_int8_precision(Graph &graph, const std::map<std::string, Int8Input> &layers, const std::string &source,
                          int weight_levels) {
    std::set<std::string> found;
    for (Layer &layer : graph.layers) {
        const auto it = layers.find(layer.name);
        if (it == layers.end()) continue;
        found.insert(layer.name);
        auto *p = std::get_if<ConvolutionParams>(&layer.params);
        if (!p)
            throw CompileError(source + ": layer '" + layer.name + "' is a " + layer.type +
                               ", not a Convolution; only convolutions run in int8");
        const Int8Input &q = it->second;
        if (!int8_scale_usable(q.scale) || q.zero_point < 0 || q.zero_point > 255)
            throw CompileError(source + ": layer '" + layer.name + "': input scale " + std::to_string(q.scale) +
                               " and zero point " + std::to_string(q.zero_point) +
                               " are out of range (scale > 0 with a finite reciprocal, zero point 0..255)");
        const std::string &reads = graph.values[size_t(layer.inputs[0])].blob_name;
        if (!q.input_blob.empty() && q.input_blob != reads)
            throw CompileError(source + ": layer '" + layer.name + "' was calibrated on blob '" + q.input_blob +
                               "' but reads '" + reads + "': calibrate this network again");
        const int64_t in_channels = graph.values[size_t(layer.inputs[0])].shape.at(1);
        if (const std::string why = int8_unsupported_reason(*p, in_channels); !why.empty())
            throw CompileError(source + ": layer '" + layer.name + "' cannot run in int8: " + why);
        mark_int8(graph, layer, *p, q, weight_levels);
    }
    for (const auto &[name, q] : layers)
        if (!found.count(name))
            throw CompileError(source + ": layer '" + name + "' is not in network '" + graph.name + "'");
}

}  // namespace cortado
