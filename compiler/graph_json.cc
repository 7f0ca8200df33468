#include "compiler/graph_json.h"

#include <variant>

#include "compiler/json_text.h"
#include "frontend/compile_error.h"
#include "frontend/layer_cost.h"
#include "ops/conv2d_int8.h"

namespace cortado {
namespace {

using Json = nlohmann::ordered_json;

Json json_value(const Graph &graph, int value) {
    return Json{{"value", value}, {"blob", graph.values[value].blob_name}, {"shape", graph.values[value].shape}};
}

// Each layer type's parameters, with Caffe's names; fusion's additions (fused_sum, fused_relu,
// fused_activation) included.
const char *const kVarianceNorms[] = {"FAN_IN", "FAN_OUT", "AVERAGE"};

Json filler_json(const Filler &f) {
    return {{"type", f.type},
            {"value", f.value},
            {"min", f.min},
            {"max", f.max},
            {"mean", f.mean},
            {"std", f.std},
            {"variance_norm", kVarianceNorms[int(f.variance_norm)]},
            {"given", f.given}};
}

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
               {"group", p.group},
               {"weight_filler", filler_json(p.weight_filler)},
               {"bias_filler", filler_json(p.bias_filler)}};
        if (p.fused_sum) out["fused_sum"] = true;
        if (p.fp16) out["fp16"] = true;
        if (p.pooling_follows) out["pooling_follows"] = true;
        if (p.int8_input)
            out["int8_input"] = {{"scale", p.int8_input->scale},
                                 {"zero_point", p.int8_input->zero_point},
                                 {"weight_levels", p.int8_input->weight_levels}};
        fused(p);
    }
    void operator()(const DeconvolutionParams &p) {
        out = {{"num_output", p.num_output},
               {"bias_term", p.bias_term},
               {"kernel", {p.kernel_h, p.kernel_w}},
               {"stride", {p.stride_h, p.stride_w}},
               {"pad", {p.pad_h, p.pad_w}},
               {"pad_end", {p.pad_bottom, p.pad_right}},
               {"dilation", {p.dilation_h, p.dilation_w}},
               {"group", p.group},
               {"output_pad", {p.output_pad_h, p.output_pad_w}},
               {"weight_filler", filler_json(p.weight_filler)},
               {"bias_filler", filler_json(p.bias_filler)}};
    }
    void operator()(const ReLUParams &p) { out = {{"negative_slope", p.negative_slope}}; }
    void operator()(const ActivationParams &p) { out = activation_json(p); }
    void operator()(const TransposeParams &p) { out = {{"perm", p.perm}}; }
    void operator()(const CropParams &p) {
        out = {{"starts", p.starts}, {"steps", p.steps},     {"sizes", p.sizes},
               {"axis", p.axis},     {"offsets", p.offsets}, {"from_reference", p.from_reference}};
    }
    void operator()(const SliceParams &p) { out = {{"axis", p.axis}, {"points", p.points}}; }
    void operator()(const ExpandParams &p) { out = {{"shape", p.shape}}; }
    void operator()(const ConstantParams &p) { out = {{"shape", p.shape}}; }
    void operator()(const ResizeParams &p) {
        out = {{"out_h", p.out_h},      {"out_w", p.out_w}, {"scale_h", p.scale_h},
               {"scale_w", p.scale_w},  {"mode", p.mode},   {"coordinates", p.coordinates},
               {"rounding", p.rounding}};
    }
    void operator()(const PReLUParams &p) {
        out = {{"channel_shared", p.channel_shared}, {"filler", filler_json(p.filler)}};
    }
    void operator()(const BiasParams &p) {
        out = {{"axis", p.axis}, {"num_axes", p.num_axes}, {"filler", filler_json(p.filler)}};
    }
    void operator()(const PoolingParams &p) {
        out = {{"pool", p.method == PoolingParams::Method::Max ? "MAX" : "AVE"},
               {"kernel", {p.kernel_h, p.kernel_w}},
               {"stride", {p.stride_h, p.stride_w}},
               {"pad", {p.pad_h, p.pad_w}},
               {"pad_end", {p.bottom_pad(), p.right_pad()}},
               {"global_pooling", p.global_pooling},
               {"round_up", p.round_up},
               {"count_padding", p.count_padding},
               {"last_window_rule_always", p.last_window_rule_always}};
    }
    void operator()(const PadParams &p) {
        out = {{"pads", {p.top, p.left, p.bottom, p.right}}, {"value", p.value}, {"mode", p.mode}};
    }
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
               {"transpose_input", p.transpose_input},
               {"weight_filler", filler_json(p.weight_filler)},
               {"bias_filler", filler_json(p.bias_filler)}};
        fused(p);
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
        fused(p);
    }
    void operator()(const DropoutParams &p) { out = {{"dropout_ratio", p.dropout_ratio}}; }
    void operator()(const SplitParams &) {}
    void operator()(const FlattenParams &p) { out = {{"axis", p.axis}, {"end_axis", p.end_axis}}; }
    void operator()(const ReshapeParams &p) { out = {{"shape", p.shape}, {"axis", p.axis}, {"num_axes", p.num_axes}}; }
    void operator()(const BatchNormParams &p) {
        out = {{"use_global_stats", p.use_global_stats}, {"eps", p.eps}};
        fused(p);
    }
    void operator()(const ScaleParams &p) {
        out = {{"axis", p.axis},
               {"num_axes", p.num_axes},
               {"bias_term", p.bias_term},
               {"filler", filler_json(p.filler)},
               {"bias_filler", filler_json(p.bias_filler)}};
        fused(p);
    }
    static Json activation_json(const ActivationParams &p) {
        return {{"function", ops::field_value(p.function)},
                {"min", p.min},
                {"max", p.max},
                {"alpha", p.alpha},
                {"beta", p.beta},
                {"gamma", p.gamma}};
    }
    template <typename Params>
    void fused(const Params &p) {
        if (p.fused_relu) {
            out["fused_relu"] = true;
            out["relu_negative_slope"] = p.relu_negative_slope;
        }
        if (p.fused_activation) out["fused_activation"] = activation_json(*p.fused_activation);
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
                          {"fused_layers", layer.fused_layers},
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

namespace {

// The other direction, field by field as ParamsJson writes them; a missing or mistyped field is
// a CompileError naming the layer.
class ParamsReader {
  public:
    ParamsReader(const Json &params, const std::string &layer) : params_(params), layer_(layer) {}

    template <typename T>
    T get(const char *name) const {
        try {
            return params_.at(name).get<T>();
        } catch (const nlohmann::json::exception &) {
            throw CompileError("graph JSON: layer '" + layer_ + "': no " + name + " of the right type");
        }
    }
    void pair(const char *name, int &first, int &second) const {
        const auto both = get<std::vector<int>>(name);
        if (both.size() != 2) throw CompileError("graph JSON: layer '" + layer_ + "': " + name + " is not a pair");
        first = both[0], second = both[1];
    }
    Filler filler(const char *name) const {
        const ParamsReader f(params_.at(name), layer_);
        Filler out;
        out.type = f.get<std::string>("type");
        out.value = f.get<float>("value");
        out.min = f.get<float>("min"), out.max = f.get<float>("max");
        out.mean = f.get<float>("mean"), out.std = f.get<float>("std");
        const std::string norm = f.get<std::string>("variance_norm");
        out.variance_norm = norm == kVarianceNorms[1]   ? Filler::VarianceNorm::FanOut
                            : norm == kVarianceNorms[2] ? Filler::VarianceNorm::Average
                                                        : Filler::VarianceNorm::FanIn;
        out.given = f.get<bool>("given");
        return out;
    }
    ActivationParams activation() const {
        ActivationParams p;
        try {
            ops::parse_field(get<std::string>("function"), p.function);
        } catch (const std::invalid_argument &e) {
            throw CompileError("graph JSON: layer '" + layer_ + "': " + e.what());
        }
        p.min = get<float>("min"), p.max = get<float>("max");
        p.alpha = get<float>("alpha"), p.beta = get<float>("beta"), p.gamma = get<float>("gamma");
        return p;
    }
    template <typename Params>
    void fused(Params &p) const {
        p.fused_relu = params_.contains("fused_relu") && get<bool>("fused_relu");
        if (p.fused_relu) p.relu_negative_slope = get<float>("relu_negative_slope");
        if (params_.contains("fused_activation"))
            p.fused_activation = ParamsReader(params_.at("fused_activation"), layer_).activation();
    }

    LayerParams read(const std::string &type) const {
        if (type == "Input") return InputParams{};
        if (type == "Convolution") {
            ConvolutionParams p;
            p.num_output = get<int>("num_output");
            p.bias_term = get<bool>("bias_term");
            pair("kernel", p.kernel_h, p.kernel_w);
            pair("stride", p.stride_h, p.stride_w);
            pair("pad", p.pad_h, p.pad_w);
            pair("dilation", p.dilation_h, p.dilation_w);
            p.group = get<int>("group");
            p.weight_filler = filler("weight_filler"), p.bias_filler = filler("bias_filler");
            p.fused_sum = params_.contains("fused_sum") && get<bool>("fused_sum");
            p.fp16 = params_.contains("fp16") && get<bool>("fp16");
            p.pooling_follows = params_.contains("pooling_follows") && get<bool>("pooling_follows");
            if (params_.contains("int8_input")) {
                const auto &q = params_.at("int8_input");
                p.int8_input = Int8Input{q.at("scale").get<float>(), q.at("zero_point").get<int>(), "",
                                         q.value("weight_levels", ops::kInt8WeightLevels)};
                if (!ops::int8_weight_levels_valid(p.int8_input->weight_levels))
                    throw CompileError("graph JSON: layer '" + layer_ + "': int8_input weight_levels " +
                                       std::to_string(p.int8_input->weight_levels) + " is out of range (1 to 127)");
            }
            fused(p);
            return p;
        }
        if (type == "Deconvolution") {
            DeconvolutionParams p;
            p.num_output = get<int>("num_output"), p.bias_term = get<bool>("bias_term");
            pair("kernel", p.kernel_h, p.kernel_w);
            pair("stride", p.stride_h, p.stride_w);
            pair("pad", p.pad_h, p.pad_w);
            pair("pad_end", p.pad_bottom, p.pad_right);
            pair("dilation", p.dilation_h, p.dilation_w);
            p.group = get<int>("group");
            pair("output_pad", p.output_pad_h, p.output_pad_w);
            p.weight_filler = filler("weight_filler"), p.bias_filler = filler("bias_filler");
            return p;
        }
        if (type == "ReLU") return ReLUParams{get<float>("negative_slope")};
        // Every activation layer (Sigmoid, Clip, ELU, HardSwish, ...) carries its function.
        if (params_.contains("function")) return activation();
        if (type == "Transpose") return TransposeParams{get<std::vector<int>>("perm")};
        if (type == "Crop") {
            CropParams p;
            p.starts = get<Shape>("starts"), p.steps = get<Shape>("steps"), p.sizes = get<Shape>("sizes");
            p.axis = get<int>("axis"), p.offsets = get<Shape>("offsets"),
            p.from_reference = get<bool>("from_reference");
            return p;
        }
        if (type == "Slice") return SliceParams{get<int>("axis"), get<Shape>("points")};
        if (type == "Expand") return ExpandParams{get<Shape>("shape")};
        if (type == "Constant") return ConstantParams{get<Shape>("shape")};
        if (type == "Resize") {
            ResizeParams p;
            p.out_h = get<int>("out_h"), p.out_w = get<int>("out_w");
            p.scale_h = get<double>("scale_h"), p.scale_w = get<double>("scale_w");
            p.mode = get<std::string>("mode"), p.coordinates = get<std::string>("coordinates");
            p.rounding = get<std::string>("rounding");
            return p;
        }
        if (type == "PReLU") return PReLUParams{get<bool>("channel_shared"), filler("filler")};
        if (type == "Bias") return BiasParams{get<int>("axis"), get<int>("num_axes"), filler("filler")};
        if (type == "Pooling") {
            PoolingParams p;
            p.method = get<std::string>("pool") == "MAX" ? PoolingParams::Method::Max : PoolingParams::Method::Average;
            pair("kernel", p.kernel_h, p.kernel_w);
            pair("stride", p.stride_h, p.stride_w);
            pair("pad", p.pad_h, p.pad_w);
            pair("pad_end", p.pad_bottom, p.pad_right);
            p.global_pooling = get<bool>("global_pooling");
            p.round_up = get<bool>("round_up");
            p.count_padding = get<bool>("count_padding");
            p.last_window_rule_always = get<bool>("last_window_rule_always");
            return p;
        }
        if (type == "Pad") {
            const auto pads = get<std::vector<int>>("pads");
            if (pads.size() != 4) throw CompileError("graph JSON: layer '" + layer_ + "': pads are not four");
            return PadParams{pads[0], pads[1], pads[2], pads[3], get<float>("value"), get<std::string>("mode")};
        }
        if (type == "LRN") {
            LRNParams p;
            p.local_size = get<int>("local_size");
            p.alpha = get<float>("alpha"), p.beta = get<float>("beta"), p.k = get<float>("k");
            p.region = get<std::string>("norm_region") == "WITHIN_CHANNEL" ? LRNParams::Region::WithinChannel
                                                                           : LRNParams::Region::AcrossChannels;
            return p;
        }
        if (type == "InnerProduct") {
            InnerProductParams p;
            p.num_output = get<int>("num_output");
            p.bias_term = get<bool>("bias_term");
            p.axis = get<int>("axis");
            p.transpose = get<bool>("transpose");
            p.transpose_input = get<bool>("transpose_input");
            p.weight_filler = filler("weight_filler"), p.bias_filler = filler("bias_filler");
            fused(p);
            return p;
        }
        if (type == "Softmax") return SoftmaxParams{get<int>("axis")};
        if (type == "Concat") return ConcatParams{get<int>("axis")};
        if (type == "Eltwise") {
            EltwiseParams p;
            const std::string op = get<std::string>("operation");
            p.operation = op == "PROD"       ? ops::EltwiseOperation::Product
                          : op == "QUOTIENT" ? ops::EltwiseOperation::Quotient
                          : op == "MAX"      ? ops::EltwiseOperation::Max
                                             : ops::EltwiseOperation::Sum;
            p.coeff = get<std::vector<float>>("coeff");
            fused(p);
            return p;
        }
        if (type == "Dropout") return DropoutParams{get<float>("dropout_ratio")};
        if (type == "Split") return SplitParams{};
        if (type == "Flatten") return FlattenParams{get<int>("axis"), get<int>("end_axis")};
        if (type == "Reshape") return ReshapeParams{get<Shape>("shape"), get<int>("axis"), get<int>("num_axes")};
        if (type == "BatchNorm") {
            BatchNormParams p;
            p.use_global_stats = get<bool>("use_global_stats");
            p.eps = get<float>("eps");
            fused(p);
            return p;
        }
        if (type == "Scale") {
            ScaleParams p;
            p.axis = get<int>("axis"), p.num_axes = get<int>("num_axes");
            p.bias_term = get<bool>("bias_term");
            p.filler = filler("filler"), p.bias_filler = filler("bias_filler");
            fused(p);
            return p;
        }
        throw CompileError("graph JSON: layer '" + layer_ + "' has type '" + type + "', which cortado does not know");
    }

  private:
    const Json &params_;
    const std::string &layer_;
};

}  // namespace

Graph graph_from_json(const nlohmann::json &json) {
    Graph graph;
    const auto value_of = [&](const nlohmann::json &v) {
        const int id = v.at("value").get<int>();
        if (id < 0 || id > 1 << 24) throw CompileError("graph JSON: value id " + std::to_string(id) + " out of range");
        if (size_t(id) >= graph.values.size()) graph.values.resize(size_t(id) + 1);
        graph.values[id] = {v.at("blob").get<std::string>(), v.at("shape").get<Shape>()};
        return id;
    };
    try {
        graph.name = json.at("name").get<std::string>();
        for (const auto &v : json.at("inputs")) graph.inputs.push_back(value_of(v));
        for (const auto &l : json.at("layers")) {
            Layer layer;
            layer.name = l.at("name").get<std::string>();
            layer.type = l.at("type").get<std::string>();
            layer.inputs = l.at("bottoms").get<std::vector<int>>();
            for (const auto &top : l.at("tops")) layer.outputs.push_back(value_of(top));
            layer.params = ParamsReader(l.at("params"), layer.name).read(layer.type);
            layer.weight_shapes = l.at("weight_shapes").get<std::vector<Shape>>();
            if (l.contains("fused_layers")) layer.fused_layers = l["fused_layers"].get<std::vector<std::string>>();
            graph.layers.push_back(std::move(layer));
        }
        for (const auto &v : json.at("outputs")) graph.outputs.push_back(value_of(v));
    } catch (const nlohmann::json::exception &e) {
        throw CompileError(std::string("graph JSON: ") + e.what());
    }
    for (const Layer &layer : graph.layers)
        for (int input : layer.inputs)
            if (input < 0 || size_t(input) >= graph.values.size())
                throw CompileError("graph JSON: layer '" + layer.name + "' reads value " + std::to_string(input) +
                                   ", which nothing makes");
    return graph;
}

}  // namespace cortado
