#include "compiler/graph_json.h"

#include <variant>

#include "compiler/json_text.h"
#include "frontend/layer_cost.h"

namespace cortado {
namespace {

using Json = nlohmann::ordered_json;

Json json_value(const Graph &graph, int value) {
    return Json{{"value", value}, {"blob", graph.values[value].blob_name}, {"shape", graph.values[value].shape}};
}

// Each layer type's parameters, with Caffe's names; fusion's additions (fused_relu) included.
struct ParamsJson {
    Json out = Json::object();
    void operator()(const InputParams &) {}
    void operator()(const ConvolutionParams &p) {
        out = {{"num_output", p.num_output},
               {"bias_term", p.bias_term},
               {"kernel", {p.kernel_h, p.kernel_w}},
               {"stride", {p.stride_h, p.stride_w}},
               {"pad", {p.pad_h, p.pad_w}},
               {"dilation", {p.dilation_h, p.dilation_w}},
               {"group", p.group}};
        relu(p.fused_relu, p.relu_negative_slope);
    }
    void operator()(const ReLUParams &p) { out = {{"negative_slope", p.negative_slope}}; }
    void operator()(const ActivationParams &p) {
        out = {{"function", ops::field_value(p.function)}};
        if (p.function == ops::ActivationFunction::Clip) out["min"] = p.min, out["max"] = p.max;
    }
    void operator()(const PoolingParams &p) {
        out = {{"pool", p.method == PoolingParams::Method::Max ? "MAX" : "AVE"},
               {"kernel", {p.kernel_h, p.kernel_w}},
               {"stride", {p.stride_h, p.stride_w}},
               {"pad", {p.pad_h, p.pad_w}},
               {"pad_end", {p.bottom_pad(), p.right_pad()}},
               {"global_pooling", p.global_pooling},
               {"round_up", p.round_up},
               {"count_padding", p.count_padding}};
    }
    void operator()(const PadParams &p) { out = {{"pads", {p.top, p.left, p.bottom, p.right}}, {"value", p.value}}; }
    void operator()(const LRNParams &p) {
        out = {{"local_size", p.local_size},
               {"alpha", p.alpha},
               {"beta", p.beta},
               {"k", p.k},
               {"norm_region", p.region == LRNParams::Region::AcrossChannels ? "ACROSS_CHANNELS" : "WITHIN_CHANNEL"}};
    }
    void operator()(const InnerProductParams &p) {
        out = {{"num_output", p.num_output},
               {"bias_term", p.bias_term},
               {"axis", p.axis},
               {"transpose", p.transpose},
               {"transpose_input", p.transpose_input}};
        relu(p.fused_relu, p.relu_negative_slope);
    }
    void operator()(const SoftmaxParams &p) { out = {{"axis", p.axis}}; }
    void operator()(const ConcatParams &p) { out = {{"axis", p.axis}}; }
    void operator()(const EltwiseParams &p) {
        // Caffe's names; QUOTIENT is cortado's own (from ONNX's Div).
        const char *caffe_name = p.operation == ops::EltwiseOperation::Product    ? "PROD"
                                 : p.operation == ops::EltwiseOperation::Sum      ? "SUM"
                                 : p.operation == ops::EltwiseOperation::Quotient ? "QUOTIENT"
                                                                                  : "MAX";
        out = {{"operation", caffe_name}, {"coeff", p.coeff}};
    }
    void operator()(const DropoutParams &p) { out = {{"dropout_ratio", p.dropout_ratio}}; }
    void operator()(const SplitParams &) {}
    void operator()(const FlattenParams &p) { out = {{"axis", p.axis}, {"end_axis", p.end_axis}}; }
    void operator()(const ReshapeParams &p) { out = {{"shape", p.shape}, {"axis", p.axis}, {"num_axes", p.num_axes}}; }
    void operator()(const BatchNormParams &p) { out = {{"eps", p.eps}}; }
    void operator()(const ScaleParams &p) {
        out = {{"axis", p.axis}, {"num_axes", p.num_axes}, {"bias_term", p.bias_term}};
    }
    void relu(bool fused, float slope) {
        if (!fused) return;
        out["fused_relu"] = true;
        out["relu_negative_slope"] = slope;
    }
};

}  // namespace

Json graph_json(const Graph &graph) {
    Json json{{"name", graph.name}, {"inputs", Json::array()}};
    for (int value : graph.inputs) json["inputs"].push_back(json_value(graph, value));
    LayerCost total;
    Json layers = Json::array();
    for (const Layer &layer : graph.layers) {
        const LayerCost cost = layer_cost(graph, layer);
        total.flops += cost.flops;
        total.parameters += cost.parameters;
        total.bytes += cost.bytes;
        ParamsJson params;
        std::visit(params, layer.params);
        Json tops = Json::array();
        for (int value : layer.outputs) tops.push_back(json_value(graph, value));
        layers.push_back({{"name", layer.name},
                          {"type", layer.type},
                          {"bottoms", layer.inputs},
                          {"tops", tops},
                          {"params", params.out},
                          {"weight_shapes", layer.weight_shapes},
                          {"flops", cost.flops},
                          {"parameters", cost.parameters},
                          {"bytes", cost.bytes},
                          {"arithmetic_intensity", cost.arithmetic_intensity()}});
    }
    json["layers"] = layers;
    json["outputs"] = Json::array();
    for (int value : graph.outputs) json["outputs"].push_back(json_value(graph, value));
    json["total"] = {{"flops", total.flops}, {"parameters", total.parameters}, {"bytes", total.bytes}};
    return json;
}

std::string graph_json_text(const Graph &graph) { return json_text(graph_json(graph)) + "\n"; }

}  // namespace cortado
