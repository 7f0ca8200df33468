#include "tools/graph_json.h"

#include <cstdio>
#include <sstream>
#include <variant>

#include "frontend/layer_cost.h"
#include "tools/json_text.h"

namespace cortado {
namespace {

template <typename T>
std::string json_list(const std::vector<T> &items) {
    std::ostringstream out;
    out << "[";
    for (size_t i = 0; i < items.size(); i++) out << (i ? ", " : "") << items[i];
    out << "]";
    return out.str();
}

std::string json_value(const Graph &graph, int value) {
    return "{\"value\": " + std::to_string(value) + ", \"blob\": " + json_string(graph.values[value].blob_name) +
           ", \"shape\": " + json_list(graph.values[value].shape) + "}";
}

// Each layer type's parameters, with Caffe's names; fusion's additions (fused_relu) included.
struct ParamsJson {
    std::ostringstream out;
    ParamsJson() { out << std::boolalpha; }
    void operator()(const InputParams &) {}
    void operator()(const ConvolutionParams &p) {
        out << "\"num_output\": " << p.num_output << ", \"bias_term\": " << p.bias_term << ", \"kernel\": ["
            << p.kernel_h << ", " << p.kernel_w << "], \"stride\": [" << p.stride_h << ", " << p.stride_w
            << "], \"pad\": [" << p.pad_h << ", " << p.pad_w << "], \"dilation\": [" << p.dilation_h << ", "
            << p.dilation_w << "], \"group\": " << p.group;
        relu(p.fused_relu, p.relu_negative_slope);
    }
    void operator()(const ReLUParams &p) { out << "\"negative_slope\": " << p.negative_slope; }
    void operator()(const PoolingParams &p) {
        out << "\"pool\": \"" << (p.method == PoolingParams::Method::Max ? "MAX" : "AVE") << "\", \"kernel\": ["
            << p.kernel_h << ", " << p.kernel_w << "], \"stride\": [" << p.stride_h << ", " << p.stride_w
            << "], \"pad\": [" << p.pad_h << ", " << p.pad_w << "], \"global_pooling\": " << p.global_pooling
            << ", \"round_up\": " << p.round_up;
    }
    void operator()(const LRNParams &p) {
        out << "\"local_size\": " << p.local_size << ", \"alpha\": " << p.alpha << ", \"beta\": " << p.beta
            << ", \"k\": " << p.k << ", \"norm_region\": \""
            << (p.region == LRNParams::Region::AcrossChannels ? "ACROSS_CHANNELS" : "WITHIN_CHANNEL") << "\"";
    }
    void operator()(const InnerProductParams &p) {
        out << "\"num_output\": " << p.num_output << ", \"bias_term\": " << p.bias_term << ", \"axis\": " << p.axis
            << ", \"transpose\": " << p.transpose;
        relu(p.fused_relu, p.relu_negative_slope);
    }
    void operator()(const SoftmaxParams &p) { out << "\"axis\": " << p.axis; }
    void operator()(const ConcatParams &p) { out << "\"axis\": " << p.axis; }
    void operator()(const EltwiseParams &p) {
        const char *names[] = {"PROD", "SUM", "MAX"};
        out << "\"operation\": \"" << names[int(p.operation)] << "\", \"coeff\": " << json_list(p.coeff);
    }
    void operator()(const DropoutParams &p) { out << "\"dropout_ratio\": " << p.dropout_ratio; }
    void operator()(const SplitParams &) {}
    void operator()(const FlattenParams &p) { out << "\"axis\": " << p.axis << ", \"end_axis\": " << p.end_axis; }
    void operator()(const ReshapeParams &p) {
        out << "\"shape\": " << json_list(p.shape) << ", \"axis\": " << p.axis << ", \"num_axes\": " << p.num_axes;
    }
    void operator()(const BatchNormParams &p) { out << "\"eps\": " << p.eps; }
    void operator()(const ScaleParams &p) {
        out << "\"axis\": " << p.axis << ", \"num_axes\": " << p.num_axes << ", \"bias_term\": " << p.bias_term;
    }
    void relu(bool fused, float slope) {
        if (fused) out << ", \"fused_relu\": true, \"relu_negative_slope\": " << slope;
    }
};

}  // namespace

std::string graph_json(const Graph &graph) {
    std::ostringstream out;
    LayerCost total;
    out << "{\n  \"name\": " << json_string(graph.name) << ",\n  \"inputs\": [";
    for (size_t i = 0; i < graph.inputs.size(); i++) out << (i ? ", " : "") << json_value(graph, graph.inputs[i]);
    out << "],\n  \"layers\": [\n";
    for (size_t l = 0; l < graph.layers.size(); l++) {
        const Layer &layer = graph.layers[l];
        const LayerCost cost = layer_cost(graph, layer);
        total.flops += cost.flops;
        total.parameters += cost.parameters;
        total.bytes += cost.bytes;
        ParamsJson params;
        std::visit(params, layer.params);
        std::vector<std::string> tops, weight_shapes;
        for (int value : layer.outputs) tops.push_back(json_value(graph, value));
        for (const Shape &shape : layer.weight_shapes) weight_shapes.push_back(json_list(shape));
        out << "    {\"name\": " << json_string(layer.name) << ", \"type\": " << json_string(layer.type)
            << ", \"bottoms\": " << json_list(layer.inputs) << ", \"tops\": " << json_list(tops)
            << ", \"params\": {" << params.out.str() << "}, \"weight_shapes\": " << json_list(weight_shapes)
            << ", \"flops\": " << cost.flops << ", \"parameters\": " << cost.parameters << ", \"bytes\": " << cost.bytes
            << ", \"arithmetic_intensity\": " << cost.arithmetic_intensity() << "}"
            << (l + 1 < graph.layers.size() ? "," : "") << "\n";
    }
    out << "  ],\n  \"outputs\": [";
    for (size_t i = 0; i < graph.outputs.size(); i++) out << (i ? ", " : "") << json_value(graph, graph.outputs[i]);
    out << "],\n  \"total\": {\"flops\": " << total.flops << ", \"parameters\": " << total.parameters
        << ", \"bytes\": " << total.bytes << "}\n}\n";
    return out.str();
}

}  // namespace cortado
