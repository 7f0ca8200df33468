#include "frontend/import_onnx.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <type_traits>

#include "frontend/compile_error.h"
#include "frontend/fusion.h"
#include "frontend/onnx_constants.h"
#include "frontend/onnx_quantization.h"
#include "frontend/shape_inference.h"
#include "onnx/onnx.pb.h"
#include "runtime/file_bytes.h"

namespace cortado {
namespace {

// Every opset of the default domain up to the newest that onnx 1.23 defines; each converter
// below follows its op's changes across them.
constexpr int64_t kFirstOpset = 1, kNewestOpset = 28;
// As for prototxts: enough for any real network, small enough that products cannot overflow.
constexpr int64_t kMaxParameter = 1 << 20;
constexpr int64_t kMaxElements = int64_t(1) << 31;

using Tensor = OnnxTensor;

class OnnxImporter {
  public:
    OnnxImporter(std::string path, const ImportOptions &options) : path_(std::move(path)), options_(options) {}

    Graph run(const std::string &bytes) {
        onnx::ModelProto model;
        if (!model.ParseFromString(bytes) || !model.has_graph())
            throw CompileError(path_ + ": not a valid ONNX model (truncated, or another kind of file)");
        for (const onnx::OperatorSetIdProto &set : model.opset_import())
            if (set.domain().empty() || set.domain() == "ai.onnx") opset_ = set.version();
        if (opset_ == 0) throw CompileError(path_ + ": the model imports no opset of the default ONNX domain");
        if (opset_ < kFirstOpset || opset_ > kNewestOpset)
            throw CompileError(path_ + ": opset " + std::to_string(opset_) + " of the default domain; cortado reads opsets " +
                               std::to_string(kFirstOpset) + " to " + std::to_string(kNewestOpset));
        const onnx::GraphProto &g = model.graph();
        graph_.name = !g.name().empty() ? g.name() : std::filesystem::path(path_).stem().string();
        for (const onnx::TensorProto &t : g.initializer()) constants_[t.name()] = tensor(t, "initializer");
        for (const onnx::ValueInfoProto &output : g.output()) graph_outputs_.insert(output.name());
        add_input(g);
        for (const onnx::NodeProto &node : g.node())
            for (const std::string &input : node.input()) uses_[input]++;
        for (const onnx::ValueInfoProto &output : g.output()) uses_[output.name()]++;
        add_nodes(g);
        if (g.output_size() != 1)
            throw CompileError(path_ + ": the graph has " + std::to_string(g.output_size()) +
                               " outputs; cortado compiles graphs with one");
        graph_.outputs = {value_of(g.output(0).name(), "the graph output")};
        if (quantized_.count(g.output(0).name()))
            throw CompileError(path_ + ": the graph output '" + g.output(0).name() +
                               "' is integers (made by QuantizeLinear or a QLinear op); cortado's output is float: "
                               "end the graph with a DequantizeLinear");
        graph_.weights = std::make_shared<const std::vector<LayerWeights>>(std::move(weights_));
        return std::move(graph_);
    }

  private:
    // Imports every node, naming every node refused at once: a refused node's partial layers are
    // taken back, and the nodes that read its outputs (directly or not) are passed over, since
    // their inputs are unknown.
    void add_nodes(const onnx::GraphProto &g) {
        std::string refusals;
        int refused = 0;
        std::set<std::string> unknown;  // outputs of refused and passed-over nodes
        for (const onnx::NodeProto &node : g.node()) {
            const bool passed_over =
                std::any_of(node.input().begin(), node.input().end(), [&](const std::string &in) { return unknown.count(in); });
            if (!passed_over) {
                const size_t layers = graph_.layers.size(), values = graph_.values.size(), weights = weights_.size();
                try {
                    add_node(node);
                    continue;
                } catch (const CompileError &e) {
                    refusals += std::string(refused++ ? "\n" : "") + e.what();
                    take_back(layers, values, weights);
                }
            }
            for (const std::string &out : node.output()) unknown.insert(out);
        }
        if (refused > 1) throw CompileError(std::to_string(refused) + " nodes are refused:\n" + refusals);
        if (refused == 1) throw CompileError(refusals);
    }

    // Undoes what a refused node added after the graph had `layers` layers, `values` values and
    // `weights` weight sets.
    void take_back(size_t layers, size_t values, size_t weights) {
        for (size_t i = layers; i < graph_.layers.size(); i++) layer_names_.erase(graph_.layers[i].name);
        graph_.layers.resize(layers);
        graph_.values.resize(values);
        weights_.resize(weights);
        inferred_layers_ = std::min(inferred_layers_, layers);
        for (auto *names : {&values_, &constant_layers_})
            for (auto it = names->begin(); it != names->end();)
                it = it->second >= int(values) ? names->erase(it) : std::next(it);
    }

    [[noreturn]] void fail(const onnx::NodeProto &node, const std::string &message) const {
        throw CompileError(path_ + ": node '" + node_name(node) + "' (" + node.op_type() + ", opset " +
                           std::to_string(opset_) + "): " + message);
    }

    std::string node_name(const onnx::NodeProto &node) const {
        return !node.name().empty() ? node.name() : node.output_size() ? node.output(0) : node.op_type();
    }

    Tensor tensor(const onnx::TensorProto &t, const std::string &what) const {
        Tensor out;
        out.data_type = t.data_type();
        for (int64_t d : t.dims()) out.dims.push_back(d);
        int64_t count = 1;
        for (int64_t d : out.dims) {
            if (d < 0 || d > kMaxElements || count * std::max<int64_t>(d, 1) > kMaxElements)
                throw CompileError(path_ + ": " + what + " '" + t.name() + "' has a bad or huge shape");
            count *= d;
        }
        // The elements, of type Stored, from the raw little-endian bytes (in the model or in its
        // external file), else from the typed field, into `destination`.
        const auto read = [&](auto stored, auto *destination, const auto &typed) {
            using Stored = decltype(stored);
            using Element = typename std::decay_t<decltype(*destination)>::value_type;
            const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
            if (!external && t.raw_data().empty()) {
                if (typed.size() != count)
                    throw CompileError(path_ + ": " + what + " '" + t.name() + "' holds " +
                                       std::to_string(typed.size()) + " values for " + std::to_string(count) +
                                       " elements");
                destination->assign(typed.begin(), typed.end());
                return;
            }
            const std::string from_file = external ? external_data(t, what, size_t(count) * sizeof(Stored)) : "";
            const std::string &raw = external ? from_file : t.raw_data();
            if (raw.size() != size_t(count) * sizeof(Stored))
                throw CompileError(path_ + ": " + what + " '" + t.name() + "' holds " + std::to_string(raw.size()) +
                                   " bytes for " + std::to_string(count) + " elements");
            destination->resize(size_t(count));
            if constexpr (std::is_same_v<Stored, Element>) {
                std::memcpy(destination->data(), raw.data(), raw.size());
            } else {
                for (size_t i = 0; i < size_t(count); i++) {
                    Stored v;
                    std::memcpy(&v, raw.data() + i * sizeof(Stored), sizeof(Stored));
                    (*destination)[i] = static_cast<Element>(v);
                }
            }
        };
        switch (t.data_type()) {
        case onnx::TensorProto::FLOAT: read(float(), &out.floats, t.float_data()); break;
        case onnx::TensorProto::DOUBLE: read(double(), &out.floats, t.double_data()); break;
        case onnx::TensorProto::INT64:
            out.integer = true;
            read(int64_t(), &out.integers, t.int64_data());
            break;
        case onnx::TensorProto::INT32:
            out.integer = true;
            read(int32_t(), &out.integers, t.int32_data());
            break;
        case onnx::TensorProto::INT16:
            out.integer = true;
            read(int16_t(), &out.integers, t.int32_data());
            break;
        case onnx::TensorProto::INT8:
            out.integer = true;
            read(int8_t(), &out.integers, t.int32_data());
            break;
        case onnx::TensorProto::UINT8:
        case onnx::TensorProto::BOOL:
            out.integer = true;
            read(uint8_t(), &out.integers, t.int32_data());
            break;
        default:
            throw CompileError(path_ + ": " + what + " '" + t.name() + "' has element type " +
                               std::to_string(t.data_type()) +
                               "; cortado reads float32 and float64 values and integer or boolean shapes");
        }
        return out;
    }

    // The tensor's bytes from its external file: `length` of them from `offset` (the tensor's own
    // size when no length is given). Each file is read once, however many tensors it holds.
    std::string external_data(const onnx::TensorProto &t, const std::string &what, size_t size) const {
        std::string location;
        int64_t offset = 0, length = -1;
        for (const onnx::StringStringEntryProto &entry : t.external_data()) {
            try {
                if (entry.key() == "location") location = entry.value();
                if (entry.key() == "offset") offset = std::stoll(entry.value());
                if (entry.key() == "length") length = std::stoll(entry.value());
            } catch (const std::exception &) {
                throw CompileError(path_ + ": " + what + " '" + t.name() + "' has an unreadable " + entry.key());
            }
        }
        // The file must lie beside the model or below it, as exporters write it.
        const std::filesystem::path relative(location);
        bool escapes = location.empty() || relative.has_root_path();
        for (const auto &part : relative) escapes |= part == "..";
        if (escapes)
            throw CompileError(path_ + ": " + what + " '" + t.name() + "' names no file beside the model ('" +
                               location + "')");
        const std::filesystem::path file = std::filesystem::path(path_).parent_path() / relative;
        auto cached = external_files_.find(file.string());
        if (cached == external_files_.end()) {
            std::string bytes, error;
            if (!read_file_bytes(file.string(), &bytes, &error))
                throw CompileError(path_ + ": " + what + " '" + t.name() + "': " + error);
            cached = external_files_.emplace(file.string(), std::move(bytes)).first;
        }
        const std::string &bytes = cached->second;
        const size_t take = length >= 0 ? size_t(length) : size;
        if (offset < 0 || size_t(offset) > bytes.size() || take > bytes.size() - size_t(offset))
            throw CompileError(path_ + ": " + what + " '" + t.name() + "' lies beyond the end of " + file.string());
        return bytes.substr(size_t(offset), take);
    }

    void add_input(const onnx::GraphProto &g) {
        std::vector<const onnx::ValueInfoProto *> inputs;
        for (const onnx::ValueInfoProto &v : g.input())
            if (!constants_.count(v.name())) inputs.push_back(&v);
        if (inputs.size() != 1)
            throw CompileError(path_ + ": the graph has " + std::to_string(inputs.size()) +
                               " inputs besides its initializers; cortado compiles graphs with one");
        const onnx::ValueInfoProto &input = *inputs[0];
        if (input.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT)
            throw CompileError(path_ + ": input '" + input.name() + "' is not float32");
        Shape shape;
        bool dynamic = false;
        for (const onnx::TensorShapeProto::Dimension &d : input.type().tensor_type().shape().dim()) {
            const bool known = d.has_dim_value() && d.dim_value() > 0;
            // A symbolic batch takes --batch; any other symbolic dimension needs --input-shape.
            dynamic |= !known && !(shape.empty() && options_.batch > 0);
            shape.push_back(known ? d.dim_value() : options_.batch);
        }
        if (!options_.input_shape.empty()) shape = options_.input_shape;
        else if (dynamic || shape.empty())
            throw CompileError(path_ + ": input '" + input.name() +
                               "' has dimensions the model leaves open; give --input-shape N,C,H,W");
        model_batch_ = input.type().tensor_type().shape().dim_size() > 0 &&
                               input.type().tensor_type().shape().dim(0).has_dim_value()
                           ? input.type().tensor_type().shape().dim(0).dim_value()
                           : 0;
        if (options_.batch > 0) shape[0] = options_.batch;
        const int id = graph_.add_value(input.name(), shape);
        graph_.inputs.push_back(id);
        values_[input.name()] = id;
    }

    // The shape of a value made so far: shape inference over the layers imported since the last
    // call (the input's shape is checked once, on the first).
    const Shape &shape_of(int value) {
        if (graph_.values[value].shape.empty()) {
            if (inferred_layers_ == 0) infer_shapes(graph_);
            else infer_shapes(graph_, inferred_layers_);
            inferred_layers_ = graph_.layers.size();
        }
        return graph_.values[value].shape;
    }

    int value_of(const std::string &name, const std::string &what) const {
        const auto found = values_.find(name);
        if (found == values_.end())
            throw CompileError(path_ + ": " + what + " '" + name + "' is produced by no earlier node" +
                               (constants_.count(name) ? " (it is a constant; cortado needs it as a weight)" : ""));
        return found->second;
    }

    const Tensor *constant(const onnx::NodeProto &node, int input) const {
        if (node.input_size() <= input || node.input(input).empty()) return nullptr;
        const auto found = constants_.find(node.input(input));
        return found == constants_.end() ? nullptr : &found->second;
    }

    const Tensor &required_constant(const onnx::NodeProto &node, int input, const char *what) const {
        const Tensor *t = constant(node, input);
        if (!t)
            fail(node, std::string(what) + " must be an initializer or a Constant (a computed one is not supported)");
        return *t;
    }

    const onnx::AttributeProto *attribute(const onnx::NodeProto &node, const std::string &name) const {
        for (const onnx::AttributeProto &a : node.attribute())
            if (a.name() == name) return &a;
        return nullptr;
    }
    // An integer attribute within [lowest, kMaxParameter].
    int checked(const onnx::NodeProto &node, int64_t value, const std::string &what, int64_t lowest) const {
        if (value < lowest || value > kMaxParameter)
            fail(node, what + " is " + std::to_string(value) + ", expected " + std::to_string(lowest) + ".." +
                           std::to_string(kMaxParameter));
        return int(value);
    }
    int64_t int_attribute(const onnx::NodeProto &node, const std::string &name, int64_t fallback) const {
        const auto *a = attribute(node, name);
        return a ? a->i() : fallback;
    }
    float float_attribute(const onnx::NodeProto &node, const std::string &name, float fallback) const {
        const auto *a = attribute(node, name);
        return a ? a->f() : fallback;
    }
    std::vector<int64_t> ints_attribute(const onnx::NodeProto &node, const std::string &name) const {
        const auto *a = attribute(node, name);
        return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
    }
    std::string string_attribute(const onnx::NodeProto &node, const std::string &name,
                                 const std::string &fallback) const {
        const auto *a = attribute(node, name);
        return a ? a->s() : fallback;
    }

    // Adds a layer reading `inputs` (value ids) and writing the node's output `output`.
    Layer &add_layer(const onnx::NodeProto &node, const std::string &type, std::vector<int> inputs, LayerParams params,
                     const std::string &output, const std::string &suffix = "") {
        Layer layer;
        layer.name = node_name(node) + suffix;
        if (!layer_names_.insert(layer.name).second) fail(node, "a second node of this name");
        layer.type = type;
        layer.inputs = std::move(inputs);
        layer.params = std::move(params);
        layer.location = SourceLocation{path_, 0};
        const int id = graph_.add_value(output);
        layer.outputs = {id};
        values_[output] = id;
        graph_.layers.push_back(std::move(layer));
        return graph_.layers.back();
    }

    void add_weights(const std::string &layer, std::vector<std::pair<Shape, std::vector<float>>> blobs) {
        LayerWeights w{layer, {}, {}};
        for (auto &[shape, data] : blobs) {
            w.shapes.push_back(shape);
            w.blobs.push_back(std::move(data));
        }
        weights_.push_back(std::move(w));
    }

    struct Pads {
        int top = 0, left = 0, bottom = 0, right = 0;
        bool symmetric() const { return top == bottom && left == right; }
    };

    // Spatial pads from `pads` ([top, left, bottom, right]) or `auto_pad`. SAME_UPPER and
    // SAME_LOWER pad so that the output is ceil(input / stride); an odd total puts the extra row
    // or column at the end (UPPER) or the start (LOWER).
    Pads spatial_pads(const onnx::NodeProto &node, int kernel_h, int kernel_w, int stride_h, int stride_w,
                      int dilation_h, int dilation_w) {
        const std::string auto_pad = string_attribute(node, "auto_pad", "NOTSET");
        if (auto_pad == "VALID") return {};
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            const Shape &in = shape_of(data_input(node, 0));
            if (in.size() != 4) fail(node, "auto_pad needs a 4-D input");
            const auto total = [](int64_t size, int kernel, int stride, int dilation) {
                const int64_t out = (size + stride - 1) / stride;
                return std::max<int64_t>(0, (out - 1) * stride + (int64_t(kernel) - 1) * dilation + 1 - size);
            };
            const int64_t h = checked(node, total(in[2], kernel_h, stride_h, dilation_h), "pads", 0),
                          w = checked(node, total(in[3], kernel_w, stride_w, dilation_w), "pads", 0);
            const bool upper = auto_pad == "SAME_UPPER";
            return {int(upper ? h / 2 : h - h / 2), int(upper ? w / 2 : w - w / 2), int(upper ? h - h / 2 : h / 2),
                    int(upper ? w - w / 2 : w / 2)};
        }
        if (auto_pad != "NOTSET") fail(node, "auto_pad " + auto_pad + " is not an ONNX padding mode");
        const std::vector<int64_t> pads = ints_attribute(node, "pads");
        if (pads.empty()) return {};
        if (pads.size() != 4) fail(node, "only 2-D pads are supported");
        return {checked(node, pads[0], "pads", 0), checked(node, pads[1], "pads", 0), checked(node, pads[2], "pads", 0),
                checked(node, pads[3], "pads", 0)};
    }

    std::pair<int, int> pair_attribute(const onnx::NodeProto &node, const std::string &name, int fallback) const {
        const std::vector<int64_t> v = ints_attribute(node, name);
        if (v.empty()) return {fallback, fallback};
        if (v.size() != 2) fail(node, name + " must have 2 values (2-D only)");
        return {checked(node, v[0], name, 1), checked(node, v[1], name, 1)};
    }

    // An input that may be computed data or a constant; a constant becomes a Constant layer
    // (once per constant), whose blob the network copies into its memory.
    int data_or_constant(const onnx::NodeProto &node, int input) {
        if (node.input_size() <= input) fail(node, "input " + std::to_string(input) + " is missing");
        const std::string &name = node.input(input);
        const Tensor *c = constant(node, input);
        if (!c) return value_of(name, "input");
        const auto made = constant_layers_.find(name);
        if (made != constant_layers_.end()) return made->second;
        std::vector<float> values = float_values(node, *c, "the constant");
        const std::string suffix = "/constant" + std::to_string(input);
        Layer &layer = add_layer(node, "Constant", {}, ConstantParams{c->dims}, node_name(node) + suffix, suffix);
        add_weights(layer.name, {{c->dims, std::move(values)}});
        return constant_layers_[name] = graph_.layers.back().outputs[0];
    }

    // A layer of `type` reading value x, for a node lowered to several layers: its output is
    // named out + suffix, and its value returned.
    int chain(const onnx::NodeProto &node, int x, const std::string &type, LayerParams params, const std::string &out,
              const std::string &suffix) {
        add_layer(node, type, {x}, std::move(params), out + suffix, suffix);
        return values_.at(out + suffix);
    }

    int data_input(const onnx::NodeProto &node, int input) const {
        if (node.input_size() <= input) fail(node, "input " + std::to_string(input) + " is missing");
        if (constants_.count(node.input(input)))
            fail(node, "input '" + node.input(input) + "' is a constant; cortado computes on the network's data only");
        return value_of(node.input(input), "input");
    }

    // One function per ONNX op, each following its op's changes across opsets kFirstOpset to
    // kNewestOpset (the versions it reads: its line's range).
    using Convert = void (OnnxImporter::*)(const onnx::NodeProto &, const std::string &);
    struct Converter {
        Convert convert;
        int64_t first_opset = kFirstOpset, last_opset = kNewestOpset;
    };
    static const std::map<std::string, Converter> &converters() {
        static const std::map<std::string, Converter> table = {
            {"Constant", {&OnnxImporter::convert_constant}},
            {"Conv", {&OnnxImporter::convert_conv}},
            {"ConvTranspose", {&OnnxImporter::convert_conv_transpose}},
            {"Relu", {&OnnxImporter::convert_relu}},
            {"LeakyRelu", {&OnnxImporter::convert_relu}},
            {"MaxPool", {&OnnxImporter::convert_pooling}},
            {"AveragePool", {&OnnxImporter::convert_pooling}},
            {"GlobalAveragePool", {&OnnxImporter::convert_global_pooling}},
            {"GlobalMaxPool", {&OnnxImporter::convert_global_pooling}},
            {"Gemm", {&OnnxImporter::add_gemm}},
            {"MatMul", {&OnnxImporter::add_gemm}},
            {"Flatten", {&OnnxImporter::convert_flatten}},
            {"Reshape", {&OnnxImporter::convert_reshape}},
            {"Softmax", {&OnnxImporter::convert_softmax}},
            {"LogSoftmax", {&OnnxImporter::convert_log_softmax}},
            {"Concat", {&OnnxImporter::convert_concat}},
            {"Add", {&OnnxImporter::add_arithmetic}},
            {"Sub", {&OnnxImporter::add_arithmetic}},
            {"Mul", {&OnnxImporter::add_arithmetic}},
            {"Div", {&OnnxImporter::add_arithmetic}},
            {"Sum", {&OnnxImporter::convert_sum}},
            {"Mean", {&OnnxImporter::convert_sum}},
            {"Max", {&OnnxImporter::convert_sum}},
            {"Min", {&OnnxImporter::convert_sum}},
            {"Transpose", {&OnnxImporter::convert_transpose}},
            {"Resize", {&OnnxImporter::convert_resize, 10}},
            {"Upsample", {&OnnxImporter::convert_resize, 7, 9}},
            {"InstanceNormalization", {&OnnxImporter::convert_normalization}},
            {"LayerNormalization", {&OnnxImporter::convert_normalization, 17}},
            {"ReduceMean", {&OnnxImporter::convert_reduce}},
            {"ReduceMax", {&OnnxImporter::convert_reduce}},
            {"ReduceSum", {&OnnxImporter::convert_reduce}},
            {"ReduceL2", {&OnnxImporter::convert_reduce}},
            {"Expand", {&OnnxImporter::convert_expand, 8}},
            {"Slice", {&OnnxImporter::convert_slice}},
            {"Split", {&OnnxImporter::convert_split, 2}},
            {"Sigmoid", {&OnnxImporter::convert_activation}},
            {"Tanh", {&OnnxImporter::convert_activation}},
            {"HardSigmoid", {&OnnxImporter::convert_activation}},
            {"HardSwish", {&OnnxImporter::convert_activation, 14}},
            {"Elu", {&OnnxImporter::convert_activation}},
            {"Selu", {&OnnxImporter::convert_activation}},
            {"Softplus", {&OnnxImporter::convert_activation}},
            {"Exp", {&OnnxImporter::convert_activation}},
            {"Log", {&OnnxImporter::convert_activation}},
            {"Sqrt", {&OnnxImporter::convert_activation}},
            {"Reciprocal", {&OnnxImporter::convert_activation}},
            {"Neg", {&OnnxImporter::convert_activation}},
            {"Pow", {&OnnxImporter::convert_activation}},
            {"Abs", {&OnnxImporter::convert_activation}},
            {"Erf", {&OnnxImporter::convert_activation, 9}},
            {"Gelu", {&OnnxImporter::convert_activation, 20}},
            {"PRelu", {&OnnxImporter::convert_prelu}},
            {"Clip", {&OnnxImporter::add_clip}},
            {"Pad", {&OnnxImporter::add_pad}},
            {"Identity", {&OnnxImporter::convert_dropout}},
            {"Dropout", {&OnnxImporter::convert_dropout}},
            {"BatchNormalization", {&OnnxImporter::add_batch_norm}},
            {"LRN", {&OnnxImporter::convert_lrn}},
            {"QuantizeLinear", {&OnnxImporter::convert_quantize, 10}},
            {"DequantizeLinear", {&OnnxImporter::convert_dequantize, 10}},
            {"QLinearConv", {&OnnxImporter::convert_qlinear, 10}},
            {"QLinearMatMul", {&OnnxImporter::convert_qlinear, 10}},
        };
        return table;
    }

    void add_node(const onnx::NodeProto &node) {
        const std::string &op = node.op_type();
        if (!node.domain().empty() && node.domain() != "ai.onnx")
            fail(node, "domain '" + node.domain() + "' is not supported");
        if (node.output_size() < 1) fail(node, "no output");
        check_integer_inputs(node);
        if (fold(node)) return;
        const auto converter = converters().find(op);
        if (converter == converters().end()) {
            if (foldable_op(op)) fail(node, "cortado evaluates " + op + " only on constants, at import");
            fail(node, "this op is not supported yet");
        }
        if (opset_ < converter->second.first_opset || opset_ > converter->second.last_opset)
            fail(node, "cortado reads " + op + " at opsets " + std::to_string(converter->second.first_opset) + " to " +
                           std::to_string(converter->second.last_opset));
        (this->*converter->second.convert)(node, node.output(0));
        if (passes_integers_on(node) && quantized_.count(node.input(0)))
            quantized_[node.output(0)] = quantized_.at(node.input(0));
    }

    // A node whose inputs are all constant (or a Shape or Size of computed data, whose shape is
    // known) becomes a constant. Returns false for any other node.
    bool fold(const onnx::NodeProto &node) {
        const std::string &op = node.op_type();
        if (!foldable_op(op)) return false;
        std::vector<const Tensor *> inputs;
        Tensor shape_only;  // Shape and Size need only the dims of computed data
        for (int i = 0; i < node.input_size(); i++) {
            if (node.input(i).empty()) {
                inputs.push_back(nullptr);
                continue;
            }
            const Tensor *t = constant(node, i);
            if (!t && i == 0 && (op == "Shape" || op == "Size") && values_.count(node.input(0))) {
                shape_only.dims = shape_of(values_.at(node.input(0)));
                t = &shape_only;
            }
            if (!t) return false;
            inputs.push_back(t);
        }
        if (inputs.empty()) return false;
        if (op == "Dropout" && mask_used(node))
            fail(node, "the mask output is used; cortado runs Dropout as inference does, without one");
        try {
            constants_[node.output(0)] = fold_constant(node, opset_, inputs);
        } catch (const FoldError &e) {
            fail(node, std::string("evaluating it at import: ") + e.what());
        }
        return true;
    }

    // Constant: a tensor `value`, or from opset 12 one of value_float(s) and value_int(s).
    void convert_constant(const onnx::NodeProto &node, const std::string &out) {
        if (node.attribute_size() != 1) fail(node, "expected exactly one value attribute");
        const onnx::AttributeProto &a = node.attribute(0);
        Tensor t;
        if (a.name() == "value") {
            t = tensor(a.t(), "Constant");
        } else if (a.name() == "value_float") {
            t.floats = {a.f()};
        } else if (a.name() == "value_floats") {
            t.floats.assign(a.floats().begin(), a.floats().end());
            t.dims = {int64_t(t.floats.size())};
        } else if (a.name() == "value_int") {
            t.integer = true;
            t.integers = {a.i()};
        } else if (a.name() == "value_ints") {
            t.integer = true;
            t.integers.assign(a.ints().begin(), a.ints().end());
            t.dims = {int64_t(t.integers.size())};
        } else {
            fail(node, "a " + a.name() + " constant is not supported (a tensor, float(s) or int(s) only)");
        }
        constants_[out] = std::move(t);
    }

    // Adds a Conv's or ConvTranspose's layer, its weights `w` (input 1) and its optional bias
    // (input 2, which must be a constant).
    template <typename Params>
    void add_product(const onnx::NodeProto &node, const char *type, int input, Params p, const Tensor &w,
                     const std::string &out) {
        const Tensor *b = constant(node, 2);
        if (node.input_size() > 2 && !node.input(2).empty() && !b) fail(node, "the bias must be a constant");
        // Checked before the copy below: a folded bias may be as large as kMaxFoldedElements.
        if (b && b->count() != p.num_output)
            fail(node, "the bias needs " + std::to_string(p.num_output) + " values (one per output channel), not " +
                           std::to_string(b->count()));
        p.bias_term = b != nullptr;
        add_layer(node, type, {input}, p, out);
        std::vector<std::pair<Shape, std::vector<float>>> blobs{{w.dims, float_values(node, w, "the weights")}};
        if (b) blobs.push_back({b->dims, float_values(node, *b, "the bias")});
        add_weights(graph_.layers.back().name, std::move(blobs));
    }

    // A 1-D Conv, MaxPool or AveragePool runs as its 2-D form on N x C x 1 x L: the input
    // reshaped, the attributes and the weights given a unit height, the output reshaped back.
    void one_dimensional(const onnx::NodeProto &node, const std::string &out, Convert convert) {
        const int x = data_input(node, 0);
        const Shape shape = shape_of(x);
        if (shape.size() != 3) fail(node, "a 1-D " + node.op_type() + " needs an N x C x L input, not " + shape_to_string(shape));
        onnx::NodeProto planar = node;
        ReshapeParams up;
        up.shape = {shape[0], shape[1], 1, shape[2]};
        add_layer(node, "Reshape", {x}, up, out + "/2d_input", "/2d_input");
        planar.set_input(0, out + "/2d_input");
        if (const Tensor *w = constant(node, 1); w && w->dims.size() == 3) {
            Tensor planar_weights = *w;
            planar_weights.dims.insert(planar_weights.dims.begin() + 2, 1);
            constants_[node.input(1) + "/2d"] = std::move(planar_weights);
            planar.set_input(1, node.input(1) + "/2d");
        }
        for (onnx::AttributeProto &a : *planar.mutable_attribute()) {
            static const std::set<std::string> spatial = {"kernel_shape", "strides",        "dilations",
                                                          "pads",         "output_padding", "output_shape"};
            if (!spatial.count(a.name())) continue;
            std::vector<int64_t> v(a.ints().begin(), a.ints().end());
            if (a.name() == "pads" && v.size() == 2) v = {0, v[0], 0, v[1]};
            else if (a.name() == "output_padding" && v.size() == 1) v = {0, v[0]};
            else if (a.name() != "pads" && v.size() == 1) v = {1, v[0]};
            a.clear_ints();
            for (int64_t i : v) a.add_ints(i);
        }
        (this->*convert)(planar, out + "/2d");
        const Shape y = shape_of(values_.at(out + "/2d"));
        ReshapeParams down;
        down.shape = {y[0], y[1], y[3]};
        add_layer(node, "Reshape", {values_.at(out + "/2d")}, down, out, "/1d_output");
    }

    void convert_conv(const onnx::NodeProto &node, const std::string &out) {
        ConvolutionParams p;
        const Tensor &w = required_constant(node, 1, "the weights");
        if (w.dims.size() == 3) return one_dimensional(node, out, &OnnxImporter::convert_conv);
        if (w.dims.size() != 4) fail(node, "only 1-D and 2-D convolutions are supported (this one is " +
                                               std::to_string(int(w.dims.size()) - 2) + "-D)");
        p.num_output = checked(node, w.dims[0], "the weights' output channels", 1);
        p.group = checked(node, int_attribute(node, "group", 1), "group", 1);
        p.kernel_h = checked(node, w.dims[2], "the kernel height", 1);
        p.kernel_w = checked(node, w.dims[3], "the kernel width", 1);
        std::tie(p.stride_h, p.stride_w) = pair_attribute(node, "strides", 1);
        std::tie(p.dilation_h, p.dilation_w) = pair_attribute(node, "dilations", 1);
        const Pads pads = spatial_pads(node, p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w);
        int input = data_input(node, 0);
        if (pads.symmetric()) {
            p.pad_h = pads.top, p.pad_w = pads.left;
        } else {  // a Pad layer takes the padding; the convolution pads nothing
            add_layer(node, "Pad", {input}, PadParams{pads.top, pads.left, pads.bottom, pads.right, 0.0f},
                      out + "/padded", "/pad");
            input = values_[out + "/padded"];
        }
        p.int8_weight_scales = model_int8_weight_scales(node.input(1), p.num_output);
        add_product(node, "Convolution", input, p, w, out);
    }

    // The per-output-channel scales of weights the model gave as symmetric int8 (DequantizeLinear
    // of an int8 constant, zero points 0, per tensor or along the output axis); empty otherwise.
    std::vector<float> model_int8_weight_scales(const std::string &weights, int64_t outputs) const {
        const auto found = dequantized_constants_.find(weights);
        if (found == dequantized_constants_.end()) return {};
        const LinearQuantization &how = found->second;
        const bool symmetric = std::all_of(how.zero_points.begin(), how.zero_points.end(), [](int64_t z) { return z == 0; });
        if (how.lowest != -128 || how.highest != 127 || !symmetric || (!how.per_tensor() && how.axis != 0)) return {};
        return scales_along_axis0(how, outputs);
    }

    // ConvTranspose: 2-D, and 1-D as 2-D. The pads come from `pads`, or from `output_shape` or a
    // SAME auto_pad through the total padding the output size implies.
    void convert_conv_transpose(const onnx::NodeProto &node, const std::string &out) {
        const Tensor &w = required_constant(node, 1, "the weights");
        if (w.dims.size() == 3) return one_dimensional(node, out, &OnnxImporter::convert_conv_transpose);
        if (w.dims.size() != 4)
            fail(node, "only 1-D and 2-D transposed convolutions are supported (this one is " +
                           std::to_string(int(w.dims.size()) - 2) + "-D)");
        const int x = data_input(node, 0);
        const Shape &shape = shape_of(x);
        if (shape.size() != 4) fail(node, "the input must be N x C x H x W");
        DeconvolutionParams p;
        p.group = checked(node, int_attribute(node, "group", 1), "group", 1);
        p.num_output = checked(node, w.dims[1] * p.group, "the output channels", 1);
        p.kernel_h = checked(node, w.dims[2], "the kernel height", 1);
        p.kernel_w = checked(node, w.dims[3], "the kernel width", 1);
        if (w.dims[0] != shape[1]) fail(node, "the weights are for " + std::to_string(w.dims[0]) + " input channels, the input has " + std::to_string(shape[1]));
        std::tie(p.stride_h, p.stride_w) = pair_attribute(node, "strides", 1);
        std::tie(p.dilation_h, p.dilation_w) = pair_attribute(node, "dilations", 1);
        const std::vector<int64_t> output_padding = ints_attribute(node, "output_padding");
        if (!output_padding.empty() && output_padding.size() != 2) fail(node, "output_padding must have 2 values");
        if (!output_padding.empty()) p.output_pad_h = int(output_padding[0]), p.output_pad_w = int(output_padding[1]);
        const std::string auto_pad = string_attribute(node, "auto_pad", "NOTSET");
        std::vector<int64_t> output_shape = ints_attribute(node, "output_shape");
        if (output_shape.size() > 2) output_shape.erase(output_shape.begin(), output_shape.end() - 2);
        if (output_shape.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
            output_shape = {shape[2] * p.stride_h, shape[3] * p.stride_w};
        if (!output_shape.empty()) {
            if (output_shape.size() != 2) fail(node, "output_shape must give the 2 spatial sizes");
            int begin[2], end[2];
            const int64_t in[2] = {shape[2], shape[3]}, stride[2] = {p.stride_h, p.stride_w};
            const int64_t extent[2] = {int64_t(p.dilation_h) * (p.kernel_h - 1) + 1, int64_t(p.dilation_w) * (p.kernel_w - 1) + 1};
            const int64_t output_pad[2] = {p.output_pad_h, p.output_pad_w};
            for (int a = 0; a < 2; a++) {
                // A negative total (an output_shape past the natural size) extends the end, as
                // output_padding does.
                const int64_t total = stride[a] * (in[a] - 1) + output_pad[a] + extent[a] - output_shape[size_t(a)];
                if (total < -kMaxParameter || total > kMaxParameter) fail(node, "output_shape is out of range");
                begin[a] = total < 0 ? 0 : int(auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2);
                end[a] = total < 0 ? 0 : int(total - begin[a]);
                if (total < 0) (a == 0 ? p.output_pad_h : p.output_pad_w) += int(-total);
            }
            p.pad_h = begin[0], p.pad_w = begin[1], p.pad_bottom = end[0], p.pad_right = end[1];
        } else if (auto_pad != "VALID") {
            const std::vector<int64_t> pads = ints_attribute(node, "pads");
            if (!pads.empty()) {
                if (pads.size() != 4) fail(node, "pads must have 4 values");
                p.pad_h = checked(node, pads[0], "pads", 0), p.pad_w = checked(node, pads[1], "pads", 0);
                p.pad_bottom = checked(node, pads[2], "pads", 0), p.pad_right = checked(node, pads[3], "pads", 0);
            }
        }
        add_product(node, "Deconvolution", x, p, w, out);
    }

    void convert_relu(const onnx::NodeProto &node, const std::string &out) {
        ReLUParams p;
        p.negative_slope = node.op_type() == "LeakyRelu" ? float_attribute(node, "alpha", 0.01f) : 0.0f;
        add_layer(node, "ReLU", {data_input(node, 0)}, p, out);
        act_in_place_after_product(node, out);
    }

    // An activation (just added, reading the node's first input) that alone reads its input acts
    // in place, as Caffe's would, so fusion can fold it into the Convolution, InnerProduct,
    // BatchNormalization (its Scale) or sum before it.
    void act_in_place_after_product(const onnx::NodeProto &node, const std::string &out) {
        const size_t count = graph_.layers.size();
        const Layer &activation = graph_.layers[count - 1];
        const int input = activation.inputs[0];
        const bool after_product = count >= 2 && graph_.layers[count - 2].outputs[0] == input &&
                                   takes_an_activation(graph_.layers[count - 2].params);
        if (after_product && uses_[node.input(0)] == 1 && !graph_outputs_.count(node.input(0)) &&
            !graph_outputs_.count(out))
            graph_.values[activation.outputs[0]].blob_name = graph_.values[input].blob_name;
    }

    // MaxPool and AveragePool. ceil_mode arrives at opset 10, count_include_pad at 7 (its default,
    // 0, is opset 1's rule too); dilations (19 for AveragePool) must be 1.
    void convert_pooling(const onnx::NodeProto &node, const std::string &out) {
        PoolingParams p;
        p.method = node.op_type() == "MaxPool" ? PoolingParams::Method::Max : PoolingParams::Method::Average;
        const size_t dims = ints_attribute(node, "kernel_shape").size();
        if (dims == 0) fail(node, "kernel_shape is missing");
        if (dims == 1) return one_dimensional(node, out, &OnnxImporter::convert_pooling);
        if (dims != 2) fail(node, "only 1-D and 2-D pooling is supported (this one is " + std::to_string(dims) + "-D)");
        std::tie(p.kernel_h, p.kernel_w) = pair_attribute(node, "kernel_shape", 1);
        std::tie(p.stride_h, p.stride_w) = pair_attribute(node, "strides", 1);
        const Pads pads = spatial_pads(node, p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, 1, 1);
        p.pad_h = pads.top, p.pad_w = pads.left, p.pad_bottom = pads.bottom, p.pad_right = pads.right;
        if (std::max(p.pad_h, p.pad_bottom) >= p.kernel_h || std::max(p.pad_w, p.pad_right) >= p.kernel_w)
            fail(node, "pads must be smaller than the kernel");
        if (pair_attribute(node, "dilations", 1) != std::pair<int, int>{1, 1})
            fail(node, "dilated pooling is not supported");
        if (node.output_size() > 1 && !node.output(1).empty()) fail(node, "the Indices output is not supported");
        p.round_up = int_attribute(node, "ceil_mode", 0) != 0;
        p.count_padding = int_attribute(node, "count_include_pad", 0) != 0;
        p.last_window_rule_always = true;
        add_layer(node, "Pooling", {data_input(node, 0)}, p, out);
    }

    void convert_global_pooling(const onnx::NodeProto &node, const std::string &out) {
        PoolingParams p;
        p.method = node.op_type() == "GlobalMaxPool" ? PoolingParams::Method::Max : PoolingParams::Method::Average;
        p.global_pooling = true;
        add_layer(node, "Pooling", {data_input(node, 0)}, p, out);
    }

    // ONNX's result is always 2-D: [product of the dims before the axis, the rest].
    void convert_flatten(const onnx::NodeProto &node, const std::string &out) {
        const int input = data_input(node, 0);
        const Shape shape = shape_of(input);
        int64_t axis = int_attribute(node, "axis", 1);
        if (axis < 0) axis += int64_t(shape.size());
        if (axis < 0 || axis > int64_t(shape.size())) fail(node, "axis must lie in -rank..rank");
        if (axis == 1) {
            add_layer(node, "Flatten", {input}, FlattenParams{}, out);
        } else {
            ReshapeParams r;
            r.shape = {1, -1};
            for (int64_t d = 0; d < axis; d++) r.shape[0] *= shape[size_t(d)];
            add_layer(node, "Reshape", {input}, r, out);
        }
    }

    // The shape is an attribute before opset 5 and a constant (or folded) input from 5.
    void convert_reshape(const onnx::NodeProto &node, const std::string &out) {
        ReshapeParams p;
        if (opset_ < 5) {
            p.shape = ints_attribute(node, "shape");
        } else {
            const Tensor &shape = required_constant(node, 1, "the shape");
            if (!shape.integer) fail(node, "the shape must be integers");
            p.shape = shape.integers;
        }
        // allowzero=1 (as PyTorch's current exporter writes it) reads a 0 as an empty axis, not as
        // the input's; without a 0 in the shape it changes nothing.
        if (int_attribute(node, "allowzero", 0) != 0 && std::count(p.shape.begin(), p.shape.end(), 0) > 0)
            fail(node, "allowzero=1 with a 0 in the shape (an empty axis) is not supported");
        // A constant shape that spells out the model's own batch follows --batch.
        if (options_.batch > 0 && model_batch_ > 0 && !p.shape.empty() && p.shape[0] == model_batch_)
            p.shape[0] = options_.batch;
        add_layer(node, "Reshape", {data_input(node, 0)}, p, out);
    }

    // Before opset 13 Softmax flattens from the axis onward (default 1); from 13 it runs along one
    // axis (default -1). A Flatten first gives the older rule.
    void convert_softmax(const onnx::NodeProto &node, const std::string &out) {
        SoftmaxParams p;
        if (opset_ >= 13) {
            p.axis = checked(node, int_attribute(node, "axis", -1), "axis", -8);
            add_layer(node, "Softmax", {data_input(node, 0)}, p, out);
            return;
        }
        FlattenParams f;
        const int input = data_input(node, 0);
        const Shape shape = shape_of(input);
        int64_t axis = int_attribute(node, "axis", 1);
        if (axis < 0) axis += int64_t(shape.size());
        if (axis < 0 || axis >= int64_t(shape.size())) fail(node, "axis beyond the input's rank");
        f.axis = int(axis);
        add_layer(node, "Flatten", {input}, f, out + "/flattened", "/flatten");
        p.axis = f.axis;
        if (f.axis + 1 >= int(shape.size())) {
            add_layer(node, "Softmax", {values_[out + "/flattened"]}, p, out);
        } else {  // back to the input's shape, as ONNX keeps it
            add_layer(node, "Softmax", {values_[out + "/flattened"]}, p, out + "/flat", "/softmax");
            ReshapeParams r;
            r.shape = shape;
            add_layer(node, "Reshape", {values_[out + "/flat"]}, r, out);
        }
    }

    // LogSoftmax from layers cortado has, finite for any finite logits: the maximum m over the
    // axes, the shifted values s = x - m, and s - ln(sum e^s) (the sum is at least 1). Before
    // opset 13 the axes are those from `axis` on (default 1), as Softmax's flattening rule has
    // it; from 13 the one axis (default -1), moved last by a Transpose and back.
    void convert_log_softmax(const onnx::NodeProto &node, const std::string &out) {
        int x = data_input(node, 0);
        const Shape shape = shape_of(x);
        const int rank = int(shape.size());
        int64_t axis = int_attribute(node, "axis", opset_ >= 13 ? -1 : 1);
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank) fail(node, "axis beyond the input's rank");
        size_t first = size_t(axis);
        TransposeParams moved, back;
        if (opset_ >= 13 && axis != rank - 1) {
            for (int d = 0; d < rank; d++)
                if (d != axis) moved.perm.push_back(d);
            moved.perm.push_back(int(axis));
            back.perm.resize(size_t(rank));
            for (int d = 0; d < rank; d++) back.perm[size_t(moved.perm[size_t(d)])] = d;
            x = chain(node, x, "Transpose", moved, out, "/moved");
            first = size_t(rank - 1);
        }
        int64_t count = 1;
        for (size_t d = first; d < size_t(rank); d++) count *= shape_of(x)[d];
        const int maximum = trailing_mean(node, x, first, out + "/maximum", PoolingParams::Method::Max);
        std::vector<int> pair = broadcast(node, {x, maximum}, out + "/shifted", "shifted_");
        EltwiseParams difference;
        difference.coeff = {1.0f, -1.0f};
        add_layer(node, "Eltwise", pair, difference, out + "/shifted", "/shifted");
        const int shifted = values_.at(out + "/shifted");
        add_layer(node, "Exp", {shifted}, ActivationParams{ops::ActivationFunction::Exp}, out + "/exponentials",
                  "/exponentials");
        const int mean = trailing_mean(node, values_.at(out + "/exponentials"), first, out + "/mean");
        ActivationParams log_sum{ops::ActivationFunction::Log};
        log_sum.alpha = float(count);  // ln(count x mean) = ln(sum)
        add_layer(node, "Log", {mean}, log_sum, out + "/log_sum", "/log_sum");
        pair = broadcast(node, {shifted, values_.at(out + "/log_sum")}, out + "/result", "result_");
        const std::string result = back.perm.empty() ? out : out + "/result";
        add_layer(node, "Eltwise", pair, difference, result, back.perm.empty() ? "" : "/result");
        if (!back.perm.empty()) add_layer(node, "Transpose", {values_.at(result)}, back, out);
    }

    // The axis defaults to 1 before opset 4 and is required from 4.
    void convert_concat(const onnx::NodeProto &node, const std::string &out) {
        ConcatParams p;
        if (opset_ >= 4 && !attribute(node, "axis")) fail(node, "axis is missing");
        p.axis = checked(node, int_attribute(node, "axis", 1), "axis", -8);
        std::vector<int> inputs;
        for (int i = 0; i < node.input_size(); i++) inputs.push_back(data_or_constant(node, i));
        add_layer(node, "Concat", inputs, p, out);
    }

    // The inputs broadcast to one shape, numpy's way: an input of another shape first goes
    // through an Expand layer.
    // `tag` tells apart the Expand layers of a node that broadcasts more than once.
    std::vector<int> broadcast(const onnx::NodeProto &node, std::vector<int> inputs, const std::string &out,
                               const std::string &tag = "") {
        Shape shape;
        for (int v : inputs) {
            const Shape &s = shape_of(v);
            if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
            for (size_t d = 0; d < s.size(); d++) {
                int64_t &common = shape[shape.size() - s.size() + d];
                if (s[d] == common || s[d] == 1) continue;
                if (common != 1)
                    fail(node, "inputs of shapes " + shape_to_string(shape_of(inputs.front())) + " and " +
                                   shape_to_string(s) + " do not broadcast");
                common = s[d];
            }
        }
        for (size_t i = 0; i < inputs.size(); i++) {
            if (shape_of(inputs[i]) == shape) continue;
            const std::string suffix = "/" + tag + "broadcast" + std::to_string(i);
            add_layer(node, "Expand", {inputs[i]}, ExpandParams{shape}, out + suffix, suffix);
            inputs[i] = values_.at(out + suffix);
        }
        return inputs;
    }

    // Sum, Mean, Max and Min of computed tensors, broadcast to one shape; one input is an
    // Identity. Min is the negated Max of the negated inputs (negation is exact).
    void convert_sum(const onnx::NodeProto &node, const std::string &out) {
        if (node.input_size() < 1) fail(node, "no inputs");
        std::vector<int> inputs;
        for (int i = 0; i < node.input_size(); i++) inputs.push_back(data_or_constant(node, i));
        if (inputs.size() == 1) {
            add_layer(node, "Dropout", inputs, DropoutParams{}, out);
            return;
        }
        inputs = broadcast(node, inputs, out);
        const bool min = node.op_type() == "Min";
        ActivationParams negation{ops::ActivationFunction::Power};
        negation.alpha = -1.0f;
        if (min)
            for (size_t i = 0; i < inputs.size(); i++) {
                const std::string suffix = "/negated" + std::to_string(i);
                add_layer(node, "Power", {inputs[i]}, negation, out + suffix, suffix);
                inputs[i] = values_.at(out + suffix);
            }
        EltwiseParams p;
        if (node.op_type() == "Max" || min) p.operation = ops::EltwiseOperation::Max;
        if (node.op_type() == "Mean") p.coeff.assign(inputs.size(), 1.0f / float(inputs.size()));
        add_layer(node, "Eltwise", inputs, p, min ? out + "/maximum" : out, min ? "/maximum" : "");
        if (min) add_layer(node, "Power", {values_.at(out + "/maximum")}, negation, out);
    }

    // ReduceMean, ReduceMax, ReduceSum and ReduceL2 over any axes, from layers cortado has: the
    // reduced axes moved last (a Transpose, where they are not), the tensor seen as 1 x P x 1 x Q
    // (P kept elements, Q reduced ones), a global pooling (Sum and L2 scale the mean by Q; L2
    // squares first and takes the root last), and a Reshape to the result's shape. The axes are
    // an attribute, or an input from 13 (ReduceSum) and 18 (the others).
    void convert_reduce(const onnx::NodeProto &node, const std::string &out) {
        const std::string &op = node.op_type();
        int x = data_input(node, 0);
        const Shape shape = shape_of(x);
        const int64_t rank = int64_t(shape.size());
        std::vector<int64_t> axes = ints_attribute(node, "axes");
        if (opset_ >= (op == "ReduceSum" ? 13 : 18) && node.input_size() > 1 && !node.input(1).empty()) {
            const Tensor &t = required_constant(node, 1, "the axes");
            if (!t.integer) fail(node, "the axes must be integers");
            axes = t.integers;
        }
        if (axes.empty() && int_attribute(node, "noop_with_empty_axes", 0) != 0) {
            add_layer(node, "Dropout", {x}, DropoutParams{}, out);
            return;
        }
        std::vector<bool> reduced(size_t(rank), axes.empty());
        for (int64_t a : axes) {
            const int64_t axis = a < 0 ? a + rank : a;
            if (axis < 0 || axis >= rank) fail(node, "axis " + std::to_string(a) + " is out of range");
            reduced[size_t(axis)] = true;
        }
        const bool keepdims = int_attribute(node, "keepdims", 1) != 0;
        TransposeParams moved;
        Shape result;
        int64_t count = 1;
        for (int64_t d = 0; d < rank; d++)
            if (!reduced[size_t(d)]) moved.perm.push_back(int(d));
        const size_t kept_axes = moved.perm.size();
        for (int64_t d = 0; d < rank; d++)
            if (reduced[size_t(d)]) moved.perm.push_back(int(d)), count *= shape[size_t(d)];
        for (int64_t d = 0; d < rank; d++)
            if (!reduced[size_t(d)] || keepdims) result.push_back(reduced[size_t(d)] ? 1 : shape[size_t(d)]);
        if (result.empty()) fail(node, "reducing every axis to a scalar (keepdims=0) is not supported");
        ActivationParams square{ops::ActivationFunction::Power};
        square.gamma = 2.0f;
        if (op == "ReduceL2") x = chain(node, x, "Power", square, out, "/squared");
        if (!std::is_sorted(moved.perm.begin(), moved.perm.end())) x = chain(node, x, "Transpose", moved, out, "/moved");
        x = pool_trailing(node, x, kept_axes,
                          op == "ReduceMax" ? PoolingParams::Method::Max : PoolingParams::Method::Average, out, "/");
        ActivationParams scaled{ops::ActivationFunction::Power};
        scaled.alpha = float(count);
        scaled.gamma = op == "ReduceL2" ? 0.5f : 1.0f;
        if (op == "ReduceSum" || op == "ReduceL2") x = chain(node, x, "Power", scaled, out, "/scaled");
        ReshapeParams back;
        back.shape = result;
        add_layer(node, "Reshape", {x}, back, out);
    }

    // Resize (10: scales; 11: roi, scales, sizes and the coordinate transformation; 18: axes)
    // and Upsample (7: scales attribute; 9: input) of the two spatial axes of an NCHW tensor,
    // nearest or linear. Before 11 the mapping is asymmetric, and nearest takes the floor.
    void convert_resize(const onnx::NodeProto &node, const std::string &out) {
        const int x = data_input(node, 0);
        const Shape shape = shape_of(x);
        if (shape.size() != 4) fail(node, "only 4-D (N x C x H x W) inputs are supported");
        ResizeParams p;
        const bool legacy = node.op_type() == "Upsample" || opset_ < 11;
        p.mode = string_attribute(node, "mode", "nearest");
        if (p.mode == "bilinear") p.mode = "linear";  // Upsample's old name
        if (p.mode != "nearest" && p.mode != "linear") fail(node, "mode " + p.mode + " is not supported (nearest and linear only)");
        p.coordinates = legacy ? "asymmetric" : string_attribute(node, "coordinate_transformation_mode", "half_pixel");
        p.rounding = legacy ? "floor" : string_attribute(node, "nearest_mode", "round_prefer_floor");
        static const std::set<std::string> transforms = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                                         "asymmetric", "tf_half_pixel_for_nearest",
                                                         "half_pixel_symmetric"};
        if (!transforms.count(p.coordinates))
            fail(node, "coordinate_transformation_mode " + p.coordinates + " is not supported");
        static const std::set<std::string> roundings = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
        if (!roundings.count(p.rounding)) fail(node, "nearest_mode " + p.rounding + " is not supported");
        if (int_attribute(node, "antialias", 0) != 0) fail(node, "antialias=1 is not supported");
        if (string_attribute(node, "keep_aspect_ratio_policy", "stretch") != "stretch")
            fail(node, "keep_aspect_ratio_policy other than stretch is not supported");
        // Per axis of the input: a scale (or a size) from the attribute or the inputs, with `axes`.
        std::vector<int64_t> axes = ints_attribute(node, "axes");
        if (axes.empty())
            for (int64_t d = 0; d < 4; d++) axes.push_back(d);
        std::vector<float> scales;
        std::vector<int64_t> sizes;
        if (node.op_type() == "Upsample" && opset_ < 9) {
            const auto *a = attribute(node, "scales");
            if (!a) fail(node, "scales is missing");
            scales.assign(a->floats().begin(), a->floats().end());
        } else {
            const int scales_input = legacy ? 1 : 2;
            if (const Tensor *t = constant(node, scales_input); t && t->count() > 0) scales = float_values(node, *t, "scales");
            else if (node.input_size() > scales_input && !node.input(scales_input).empty() && !t)
                fail(node, "scales must be a constant");
            if (!legacy && node.input_size() > 3 && !node.input(3).empty()) {
                const Tensor &t = required_constant(node, 3, "sizes");
                if (!t.integer) fail(node, "sizes must be integers");
                sizes = t.integers;
            }
        }
        if (scales.empty() == sizes.empty()) fail(node, "exactly one of scales and sizes must be given");
        if ((scales.empty() ? sizes.size() : scales.size()) != axes.size())
            fail(node, "scales or sizes need one value per axis resized");
        double scale[4] = {1, 1, 1, 1};
        int64_t size[4] = {shape[0], shape[1], shape[2], shape[3]};
        for (size_t i = 0; i < axes.size(); i++) {
            const int64_t axis = axes[i] < 0 ? axes[i] + 4 : axes[i];
            if (axis < 0 || axis > 3) fail(node, "an axis is out of range");
            if (sizes.empty()) {
                if (!(scales[i] > 0.0f) || !std::isfinite(scales[i])) fail(node, "a scale is not positive and finite");
                scale[axis] = scales[i];
                const double length = std::floor(double(shape[size_t(axis)]) * scales[i]);
                if (length > double(kMaxParameter)) fail(node, "a scale makes an axis longer than " + std::to_string(kMaxParameter));
                size[axis] = int64_t(length);
            } else {
                size[axis] = sizes[i];
                scale[axis] = double(sizes[i]) / double(shape[size_t(axis)]);
            }
        }
        if (scale[0] != 1.0 || scale[1] != 1.0 || size[0] != shape[0] || size[1] != shape[1])
            fail(node, "only the spatial axes (2 and 3) may be resized");
        // Resize before 11 rounds nearest down when it enlarges an axis and up when it shrinks
        // one (as onnxruntime and ONNX's tests do); one kernel has one rounding for both axes.
        if (legacy && p.mode == "nearest" && (scale[2] < 1.0) != (scale[3] < 1.0))
            fail(node, "a nearest resize before opset 11 that shrinks one axis and enlarges the other is not supported");
        if (legacy && p.mode == "nearest" && scale[2] < 1.0) p.rounding = "ceil";
        if (size[2] < 1 || size[3] < 1 || size[2] > kMaxParameter || size[3] > kMaxParameter)
            fail(node, "the output plane " + std::to_string(size[2]) + "x" + std::to_string(size[3]) + " is out of range");
        p.out_h = int(size[2]), p.out_w = int(size[3]), p.scale_h = scale[2], p.scale_w = scale[3];
        add_layer(node, "Resize", {x}, p, out);
    }

    // The mean (or maximum) of x over its trailing axes from `first` on, kept as 1s: x seen as
    // 1 x P x 1 x Q, a global pooling, and a Reshape back.
    int trailing_mean(const onnx::NodeProto &node, int x, size_t first, const std::string &name,
                      PoolingParams::Method method = PoolingParams::Method::Average) {
        Shape result = shape_of(x);
        std::fill(result.begin() + long(first), result.end(), 1);
        const int pooled = pool_trailing(node, x, first, method, name, "/" + name + "_");
        ReshapeParams back;
        back.shape = result;
        add_layer(node, "Reshape", {pooled}, back, name, "/" + name);
        return values_.at(name);
    }

    // The global pooling of x over its trailing axes from `first` on: x seen as 1 x P x 1 x Q (P
    // kept elements, Q pooled ones), pooled to 1 x P x 1 x 1. The values are named `name`/planes
    // and `name`/pooled, the layers by `suffix` followed by planes and pooled.
    int pool_trailing(const onnx::NodeProto &node, int x, size_t first, PoolingParams::Method method,
                      const std::string &name, const std::string &suffix) {
        const Shape &shape = shape_of(x);
        int64_t kept = 1, count = 1;
        for (size_t d = 0; d < shape.size(); d++) (d < first ? kept : count) *= shape[d];
        ReshapeParams planes;
        planes.shape = {1, kept, 1, count};
        add_layer(node, "Reshape", {x}, planes, name + "/planes", suffix + "planes");
        PoolingParams pooling;
        pooling.method = method;
        pooling.global_pooling = true;
        add_layer(node, "Pooling", {values_.at(name + "/planes")}, pooling, name + "/pooled", suffix + "pooled");
        return values_.at(name + "/pooled");
    }

    // InstanceNormalization (over the axes from 2) and LayerNormalization (from `axis`), from
    // layers cortado has: the mean, the centred values, their mean square, (variance + epsilon)
    // to the power -1/2, their product, then the learned scale and bias as a Scale layer.
    void convert_normalization(const onnx::NodeProto &node, const std::string &out) {
        const bool instance = node.op_type() == "InstanceNormalization";
        const int x = data_input(node, 0);
        const Shape shape = shape_of(x);
        const int64_t rank = int64_t(shape.size());
        int64_t axis = instance ? 2 : int_attribute(node, "axis", -1);
        if (axis < 0) axis += rank;
        if (axis < (instance ? 2 : 0) || axis >= rank) fail(node, "axis is out of range for the input's rank");
        for (int i = 1; i < node.output_size(); i++)
            if (!node.output(i).empty() && uses_[node.output(i)] > 0)
                fail(node, "the Mean and InvStdDev outputs are used; cortado computes the normalised output only");
        const float epsilon = float_attribute(node, "epsilon", 1e-5f);
        const int mean = trailing_mean(node, x, size_t(axis), out + "/mean");
        std::vector<int> pair = broadcast(node, {x, mean}, out + "/centred", "centred_");
        EltwiseParams difference;
        difference.coeff = {1.0f, -1.0f};
        add_layer(node, "Eltwise", pair, difference, out + "/centred", "/centred");
        const int centred = values_.at(out + "/centred");
        ActivationParams square{ops::ActivationFunction::Power};
        square.gamma = 2.0f;
        add_layer(node, "Power", {centred}, square, out + "/squared", "/squared");
        const int variance = trailing_mean(node, values_.at(out + "/squared"), size_t(axis), out + "/variance");
        ActivationParams inverse_root{ops::ActivationFunction::Power};
        inverse_root.beta = epsilon, inverse_root.gamma = -0.5f;
        add_layer(node, "Power", {variance}, inverse_root, out + "/inverse_deviation", "/inverse_deviation");
        pair = broadcast(node, {centred, values_.at(out + "/inverse_deviation")}, out + "/normalised", "normalised_");
        EltwiseParams product;
        product.operation = ops::EltwiseOperation::Product;
        add_layer(node, "Eltwise", pair, product, out + "/normalised", "/normalised");
        const Tensor &scale = required_constant(node, 1, "the scale");
        ConstantAxes axes;
        axes.first = instance ? 1 : int(axis);
        axes.last = instance ? 1 : int(rank - 1);
        axes.blob_shape = Shape(shape.begin() + axes.first, shape.begin() + axes.last + 1);
        const int64_t count = element_count(axes.blob_shape);
        std::vector<float> scale_values = float_values(node, scale, "the scale"), bias_values;
        if (int64_t(scale_values.size()) != count) fail(node, "the scale needs " + std::to_string(count) + " values");
        if (const Tensor *bias = constant(node, 2)) {
            bias_values = float_values(node, *bias, "the bias");
            if (int64_t(bias_values.size()) != count) fail(node, "the bias needs " + std::to_string(count) + " values");
        } else if (node.input_size() > 2 && !node.input(2).empty()) {
            fail(node, "the bias must be a constant");
        } else if (instance) {
            fail(node, "the bias is missing");
        }
        add_scale(node, values_.at(out + "/normalised"), axes, std::move(scale_values), std::move(bias_values), out);
    }

    // Transpose of computed data; no perm reverses the axes.
    void convert_transpose(const onnx::NodeProto &node, const std::string &out) {
        const int x = data_input(node, 0);
        const size_t rank = shape_of(x).size();
        std::vector<int64_t> perm = ints_attribute(node, "perm");
        if (!attribute(node, "perm"))
            for (size_t d = rank; d-- > 0;) perm.push_back(int64_t(d));
        TransposeParams p;
        for (int64_t a : perm) p.perm.push_back(checked(node, a, "a perm entry", 0));
        add_layer(node, "Transpose", {x}, p, out);
    }

    // Expand of computed data to a constant shape (numpy broadcasting in both directions: the
    // result has the larger of each pair of dims).
    void convert_expand(const onnx::NodeProto &node, const std::string &out) {
        const int x = data_input(node, 0);
        const Tensor &target = required_constant(node, 1, "the shape");
        if (!target.integer) fail(node, "the shape must be integers");
        const Shape &in = shape_of(x);
        Shape shape(target.integers.begin(), target.integers.end());
        if (in.size() > shape.size()) shape.insert(shape.begin(), in.size() - shape.size(), 1);
        for (size_t d = 0; d < in.size(); d++) {
            int64_t &dim = shape[shape.size() - in.size() + d];
            if (dim == 1) dim = in[d];
            else if (in[d] != 1 && in[d] != dim)
                fail(node, "cannot broadcast " + shape_to_string(in) + " to " + shape_to_string(target.integers));
        }
        for (int64_t d : shape)
            if (d < 1) fail(node, "the shape " + shape_to_string(target.integers) + " has a dim below 1");
        if (shape == in) add_layer(node, "Dropout", {x}, DropoutParams{}, out);
        else add_layer(node, "Expand", {x}, ExpandParams{shape}, out);
    }

    // Slice of computed data: starts, ends, axes and steps as attributes (before 10) or constant
    // inputs, clamped as numpy clamps them.
    void convert_slice(const onnx::NodeProto &node, const std::string &out) {
        const int x = data_input(node, 0);
        const Shape &shape = shape_of(x);
        const auto integers = [&](int input, const char *name) {
            if (opset_ < 10) return ints_attribute(node, name);
            if (node.input_size() <= input || node.input(input).empty()) return std::vector<int64_t>{};
            const Tensor &t = required_constant(node, input, name);
            if (!t.integer) fail(node, std::string(name) + " must be integers");
            return t.integers;
        };
        const std::vector<int64_t> starts = integers(1, "starts"), ends = integers(2, "ends");
        std::vector<int64_t> axes = integers(3, "axes"), steps = opset_ < 10 ? std::vector<int64_t>{} : integers(4, "steps");
        if (starts.size() != ends.size()) fail(node, "starts and ends differ in length");
        if (axes.empty())
            for (size_t i = 0; i < starts.size(); i++) axes.push_back(int64_t(i));
        if (steps.empty()) steps.assign(starts.size(), 1);
        if (axes.size() != starts.size() || steps.size() != starts.size())
            fail(node, "starts, ends, axes and steps differ in length");
        CropParams p;
        p.starts.assign(shape.size(), 0), p.steps.assign(shape.size(), 1), p.sizes = shape;
        std::vector<bool> seen(shape.size(), false);
        for (size_t i = 0; i < starts.size(); i++) {
            int64_t axis = axes[i] < 0 ? axes[i] + int64_t(shape.size()) : axes[i];
            if (axis < 0 || axis >= int64_t(shape.size()) || seen[size_t(axis)]) fail(node, "axes are out of range or repeat");
            seen[size_t(axis)] = true;
            SliceWindow window;
            try {
                window = slice_window(shape[size_t(axis)], starts[i], ends[i], steps[i]);
            } catch (const FoldError &e) {
                fail(node, e.what());
            }
            if (window.count == 0) fail(node, "the slice along axis " + std::to_string(axis) + " is empty");
            p.starts[size_t(axis)] = window.start, p.steps[size_t(axis)] = steps[i], p.sizes[size_t(axis)] = window.count;
        }
        if (p.sizes == shape && std::all_of(p.steps.begin(), p.steps.end(), [](int64_t s) { return s == 1; }))
            add_layer(node, "Dropout", {x}, DropoutParams{}, out);
        else add_layer(node, "Crop", {x}, p, out);
    }

    // Split of computed data into pieces along an axis: sizes as an attribute (before 13) or an
    // input, or num_outputs (18) or the outputs' count for equal pieces (ONNX's last piece may be
    // smaller from 18).
    void convert_split(const onnx::NodeProto &node, const std::string &) {
        const int x = data_input(node, 0);
        const Shape &shape = shape_of(x);
        SliceParams p;
        p.axis = checked(node, int_attribute(node, "axis", 0), "axis", -int64_t(shape.size()));
        const int axis = p.axis < 0 ? p.axis + int(shape.size()) : p.axis;
        if (axis >= int(shape.size())) fail(node, "axis is out of range");
        std::vector<int64_t> sizes = opset_ < 13 ? ints_attribute(node, "split") : std::vector<int64_t>{};
        if (opset_ >= 13 && node.input_size() > 1 && !node.input(1).empty()) {
            const Tensor &t = required_constant(node, 1, "split");
            if (!t.integer) fail(node, "split must be integers");
            sizes = t.integers;
        }
        const int64_t pieces = node.output_size(), dim = shape[size_t(axis)];
        if (sizes.empty()) {  // equal pieces, the last smaller when they do not divide (opset 18)
            const int64_t piece = (dim + pieces - 1) / pieces;
            for (int64_t i = 0; i < pieces; i++) sizes.push_back(std::min(piece, dim - i * piece));
        }
        if (int64_t(sizes.size()) != pieces) fail(node, std::to_string(sizes.size()) + " sizes for " +
                                                        std::to_string(pieces) + " outputs");
        int64_t begin = 0;
        for (int64_t i = 0; i < pieces; i++) {
            if (sizes[size_t(i)] < 1) fail(node, "a piece of size " + std::to_string(sizes[size_t(i)]));
            if (i > 0) p.points.push_back(begin);
            begin += sizes[size_t(i)];
        }
        if (begin != dim) fail(node, "the sizes add up to " + std::to_string(begin) + ", the axis has " + std::to_string(dim));
        Layer &layer = add_layer(node, "Slice", {x}, p, node.output(0));
        for (int i = 1; i < node.output_size(); i++) {
            const int id = graph_.add_value(node.output(i));
            values_[node.output(i)] = id;
            layer.outputs.push_back(id);
        }
    }

    // An element-wise activation (ops::ActivationFunction) with its attributes' names and
    // defaults; a null name is a parameter the op fixes.
    struct ActivationOp {
        ops::ActivationFunction function;
        float alpha = 1.0f, beta = 0.0f, gamma = 1.0f;
        const char *alpha_name = nullptr, *beta_name = nullptr, *gamma_name = nullptr;
    };
    static const std::map<std::string, ActivationOp> &activation_ops() {
        using F = ops::ActivationFunction;
        static const std::map<std::string, ActivationOp> table = {
            {"Sigmoid", {F::Sigmoid}},
            {"Tanh", {F::Tanh}},
            {"HardSigmoid", {F::HardSigmoid, 0.2f, 0.5f, 1.0f, "alpha", "beta"}},
            {"HardSwish", {F::HardSwish, 1.0f / 6.0f, 0.5f}},
            {"Elu", {F::Elu, 1.0f, 0.0f, 1.0f, "alpha"}},
            {"Selu", {F::Selu, 1.67326319217681884765625f, 0.0f, 1.05070102214813232421875f, "alpha", nullptr, "gamma"}},
            {"Softplus", {F::Softplus}},
            {"Exp", {F::Exp}},
            {"Log", {F::Log}},
            {"Sqrt", {F::Power, 1.0f, 0.0f, 0.5f}},
            {"Reciprocal", {F::Power, 1.0f, 0.0f, -1.0f}},
            {"Neg", {F::Power, -1.0f, 0.0f, 1.0f}},
            {"Pow", {F::Power}},
            {"Abs", {F::Abs}},
            {"Erf", {F::Erf}},
            {"Gelu", {F::Gelu}},
        };
        return table;
    }

    void convert_activation(const onnx::NodeProto &node, const std::string &out) {
        const ActivationOp &op = activation_ops().at(node.op_type());
        ActivationParams p;
        p.function = op.function;
        p.alpha = op.alpha_name ? float_attribute(node, op.alpha_name, op.alpha) : op.alpha;
        p.beta = op.beta_name ? float_attribute(node, op.beta_name, op.beta) : op.beta;
        p.gamma = op.gamma_name ? float_attribute(node, op.gamma_name, op.gamma) : op.gamma;
        if (node.op_type() == "Gelu") {
            const std::string approximate = string_attribute(node, "approximate", "none");
            if (approximate == "tanh") p.function = ops::ActivationFunction::GeluTanh;
            else if (approximate != "none") fail(node, "approximate is '" + approximate + "', expected none or tanh");
        }
        if (node.op_type() == "Pow") {
            const Tensor &exponent = required_constant(node, 1, "the exponent");
            if (exponent.count() != 1) fail(node, "the exponent must be one value (a tensor of them is not supported)");
            p.gamma = exponent.integer ? float(exponent.integers[0]) : exponent.floats[0];
        }
        add_layer(node, node.op_type(), {data_input(node, 0)}, p, out);
        act_in_place_after_product(node, out);
    }

    // PRelu: the slope broadcast against x must vary along axis 1 alone (one slope per channel),
    // or be one value.
    void convert_prelu(const onnx::NodeProto &node, const std::string &out) {
        const int x = data_input(node, 0);
        const Tensor &slope = required_constant(node, 1, "the slope");
        const Shape &shape = shape_of(x);
        std::vector<float> values = float_values(node, slope, "the slope");
        PReLUParams p;
        p.channel_shared = values.size() == 1;
        if (!p.channel_shared) {
            const size_t rank = shape.size(), slope_rank = slope.dims.size();
            bool per_channel = rank >= 2 && slope_rank <= rank && slope_rank >= rank - 1;
            for (size_t i = 0; per_channel && i < slope_rank; i++) {
                const size_t axis = rank - slope_rank + i;
                per_channel = slope.dims[i] == (axis == 1 ? shape[1] : 1);
            }
            if (!per_channel)
                fail(node, "slope of shape " + shape_to_string(slope.dims) + " against x of shape " +
                               shape_to_string(shape) + ": only one slope, or one per channel (axis 1), is supported");
        }
        Layer &layer = add_layer(node, "PReLU", {x}, p, out);
        const Shape blob_shape{int64_t(values.size())};
        add_weights(layer.name, {{blob_shape, std::move(values)}});
    }

    // Dropout is the identity at inference in every opset: is_test (before 7), ratio and
    // training_mode (inputs from 12) change nothing; the mask output may be listed if nothing
    // reads it. Identity of computed data is the same layer.
    void convert_dropout(const onnx::NodeProto &node, const std::string &out) {
        if (mask_used(node)) fail(node, "the mask output is used; cortado runs Dropout as inference does, without one");
        if (node.input_size() > 2 && !node.input(2).empty()) {
            const Tensor *training = constant(node, 2);
            if (!training || !training->integer || training->integers != std::vector<int64_t>{0})
                fail(node, "training_mode must be a constant false");
        }
        add_layer(node, "Dropout", {data_input(node, 0)}, DropoutParams{}, out);
    }

    // Whether a node reads Dropout's mask output, or the graph returns it.
    bool mask_used(const onnx::NodeProto &node) {
        return node.output_size() > 1 && !node.output(1).empty() &&
               (uses_[node.output(1)] > 0 || graph_outputs_.count(node.output(1)));
    }

    void convert_lrn(const onnx::NodeProto &node, const std::string &out) {
        LRNParams p;
        p.local_size = checked(node, int_attribute(node, "size", 0), "size", 1);
        if (p.local_size % 2 == 0) fail(node, "size must be odd");
        p.alpha = float_attribute(node, "alpha", 1e-4f);
        p.beta = float_attribute(node, "beta", 0.75f);
        p.k = float_attribute(node, "bias", 1.0f);
        add_layer(node, "LRN", {data_input(node, 0)}, p, out);
    }

    // A float tensor's values; an integer one (a weight written as int64) is refused by name.
    const std::vector<float> &float_values(const onnx::NodeProto &node, const Tensor &t, const char *what) const {
        if (t.integer) fail(node, std::string(what) + " must be floating point");
        return t.floats;
    }

    // Gemm (Y = alpha A B' + beta C, B transposed when transB) and MatMul by a constant B as an
    // InnerProduct: Caffe's weights are N x K, or K x N with `transpose`. C that differs between
    // rows (M x 1, M x N) is added by a Scale layer after the product.
    void add_gemm(const onnx::NodeProto &node, const std::string &out) {
        const bool gemm = node.op_type() == "Gemm";
        const bool trans_a = gemm && int_attribute(node, "transA", 0) != 0;
        const bool trans_b = gemm && int_attribute(node, "transB", 0) != 0;
        const float alpha = gemm ? float_attribute(node, "alpha", 1.0f) : 1.0f;
        const float beta = gemm ? float_attribute(node, "beta", 1.0f) : 1.0f;
        const Tensor &b = required_constant(node, 1, "B");
        if (!gemm && b.dims.size() > 2 &&
            (element_count(b.dims) != b.dims.end()[-2] * b.dims.end()[-1] ||
             shape_of(data_input(node, 0)).size() < b.dims.size())) {
            batched_matmul(node, b, out);
            return;
        }
        if (gemm && b.dims.size() != 2) fail(node, "B must be 2-D");
        if (!gemm && b.dims.size() == 1) {  // a vector: the product by the K x 1 matrix, less its unit axis
            Tensor column = b;
            column.dims = {b.dims[0], 1};
            constants_[node.input(1) + "/column"] = std::move(column);
            onnx::NodeProto planar = node;
            planar.set_input(1, node.input(1) + "/column");
            add_gemm(planar, out + "/column");
            ReshapeParams drop;
            drop.shape = shape_of(values_.at(out + "/column"));
            drop.shape.pop_back();
            if (drop.shape.empty()) fail(node, "a vector times a vector (a scalar) is not supported");
            add_layer(node, "Reshape", {values_.at(out + "/column")}, drop, out, "/vector");
            return;
        }
        if (!gemm && b.dims.size() != 2) {  // leading 1s: a 2-D B
            Tensor flat = b;
            flat.dims = {b.dims.end()[-2], b.dims.end()[-1]};
            constants_[node.input(1) + "/2d"] = std::move(flat);
            onnx::NodeProto planar = node;
            planar.set_input(1, node.input(1) + "/2d");
            add_gemm(planar, out);
            return;
        }
        if (b.dims.size() != 2) fail(node, "B must be at least 2-D");
        InnerProductParams p;
        p.num_output = checked(node, trans_b ? b.dims[0] : b.dims[1], "N", 1);
        p.axis = gemm ? 1 : -1;  // MatMul multiplies the last axis, whatever the rank
        p.transpose = !trans_b;
        p.transpose_input = trans_a;
        std::vector<float> weights = float_values(node, b, "B");
        if (alpha != 1.0f)
            for (float &v : weights) v *= alpha;
        std::vector<std::pair<Shape, std::vector<float>>> blobs{{b.dims, std::move(weights)}};
        const Tensor *c = gemm ? constant(node, 2) : nullptr;
        if (gemm && node.input_size() > 2 && !node.input(2).empty() && !c) fail(node, "C must be a constant");
        if (c) float_values(node, *c, "C");
        const size_t n = size_t(p.num_output);
        // C as a bias: a scalar, N values or 1 x N, the same for every row.
        const bool row_bias = c && (c->dims.size() <= 1 || (c->dims.size() == 2 && c->dims[0] == 1)) &&
                              (c->floats.size() == n || c->floats.size() == 1);
        p.bias_term = row_bias && beta != 0.0f;
        if (p.bias_term) {
            std::vector<float> bias(n, c->floats.size() == 1 ? c->floats[0] : 0.0f);
            if (c->floats.size() == n) bias = c->floats;
            for (float &v : bias) v *= beta;
            blobs.push_back({Shape{int64_t(n)}, std::move(bias)});
        }
        const bool c_after = c && !row_bias && beta != 0.0f;  // M x 1 or M x N: added after the product
        add_layer(node, "InnerProduct", {data_input(node, 0)}, p, c_after ? out + "/product" : out,
                  c_after ? "/product" : "");
        add_weights(graph_.layers.back().name, std::move(blobs));
        if (c_after) {
            const int product = values_[out + "/product"];
            const ConstantAxes axes = constant_axes(node, *c, shape_of(product));
            const size_t count = size_t(element_count(axes.blob_shape));
            std::vector<float> bias = axes.scalar ? std::vector<float>(count, c->floats.at(0)) : c->floats;
            for (float &v : bias) v *= beta;
            add_scale(node, product, axes, std::vector<float>(count, 1.0f), std::move(bias), out, "/add_c");
        }
    }

    // MatMul of A (computed, [..., M, K]) by a constant B with batch axes ([..., K, N]), numpy's
    // way: the batch axes broadcast (A through an Expand, B's matrices repeated at import), then
    // the g matrices of B are the groups of a 1x1 convolution. A is seen as p x g x M x K (p: the
    // batch axes B lacks), its last two axes swapped, and p x gK x M x 1 convolved into
    // p x gN x M x 1; the inverse moves give p x g x M x N and the result's shape.
    void batched_matmul(const onnx::NodeProto &node, const Tensor &b, const std::string &out) {
        int x = data_input(node, 0);
        Shape a_shape = shape_of(x);
        const size_t b_rank = b.dims.size();
        if (a_shape.size() < 2) fail(node, "A must have at least 2 axes when B has batch axes");
        const int64_t m = a_shape.end()[-2], k = a_shape.end()[-1], n = b.dims[b_rank - 1];
        if (b.dims[b_rank - 2] != k)
            fail(node, "A's last axis (" + std::to_string(k) + ") is not B's rows (" + std::to_string(b.dims[b_rank - 2]) + ")");
        // The broadcast batch axes, aligned from the end.
        Shape batch(a_shape.begin(), a_shape.end() - 2);
        const Shape b_batch(b.dims.begin(), b.dims.end() - 2);
        if (b_batch.size() > batch.size()) batch.insert(batch.begin(), b_batch.size() - batch.size(), 1);
        for (size_t i = 0; i < b_batch.size(); i++) {
            int64_t &common = batch[batch.size() - b_batch.size() + i];
            if (b_batch[i] != common && b_batch[i] != 1 && common != 1)
                fail(node, "the batch axes of A (" + shape_to_string(a_shape) + ") and B (" + shape_to_string(b.dims) +
                               ") do not broadcast");
            common = std::max(common, b_batch[i]);
        }
        Shape expanded = batch;
        expanded.push_back(m), expanded.push_back(k);
        if (expanded != a_shape) {
            x = chain(node, x, "Expand", ExpandParams{expanded}, out, "/expanded");
            a_shape = expanded;
        }
        int64_t p = 1, g = 1;
        const size_t shared_from = batch.size() - b_batch.size();  // the axes B has
        for (size_t d = 0; d < batch.size(); d++) (d < shared_from ? p : g) *= batch[d];
        // B's matrix for each of the g broadcast batch positions (an axis of 1 repeats).
        const std::vector<float> source = float_values(node, b, "B");
        std::vector<float> values(size_t(g * k * n));
        for (int64_t i = 0; i < g; i++) {
            int64_t rest = i, from = 0, stride = 1;
            for (size_t d = b_batch.size(); d-- > 0;) {
                const int64_t size = batch[shared_from + d], at = rest % size;
                rest /= size;
                from += (b_batch[d] == 1 ? 0 : at) * stride;
                stride *= b_batch[d];
            }
            std::copy_n(source.begin() + long(from * k * n), k * n, values.begin() + long(i * k * n));
        }
        ReshapeParams grouped;
        grouped.shape = {p, g, m, k};
        x = chain(node, x, "Reshape", grouped, out, "/grouped");
        TransposeParams swap;
        swap.perm = {0, 1, 3, 2};
        x = chain(node, x, "Transpose", swap, out, "/columns");
        ReshapeParams planes;
        planes.shape = {p, g * k, m, 1};
        x = chain(node, x, "Reshape", planes, out, "/planes");
        ConvolutionParams conv;
        conv.num_output = checked(node, g * n, "the product's channels", 1);
        conv.kernel_h = conv.kernel_w = 1;
        conv.group = checked(node, g, "the matrices of B", 1);
        conv.bias_term = false;
        // Output channel (group i, column j) weighs input channel (i, row r) by B[i][r][j].
        std::vector<float> weights(size_t(g * n * k));
        for (int64_t i = 0; i < g; i++)
            for (int64_t r = 0; r < k; r++)
                for (int64_t j = 0; j < n; j++) weights[size_t((i * n + j) * k + r)] = values[size_t((i * k + r) * n + j)];
        x = chain(node, x, "Convolution", conv, out, "/product");
        add_weights(graph_.layers.back().name, {{Shape{g * n, k, 1, 1}, std::move(weights)}});
        ReshapeParams split;
        split.shape = {p, g, n, m};
        x = chain(node, x, "Reshape", split, out, "/split");
        x = chain(node, x, "Transpose", swap, out, "/rows");
        ReshapeParams back;
        back.shape = a_shape;
        back.shape.back() = n;
        add_layer(node, "Reshape", {x}, back, out);
    }

    // Add, Sub, Mul and Div. Of two computed tensors of one shape: an Eltwise. Of a computed tensor
    // and a constant that broadcasts as a bias or a scale does (a scalar, or values along
    // contiguous axes with 1 elsewhere, aligned from the last axis as numpy aligns them): a Scale
    // layer, x * scale + bias, with Div's constant inverted.
    void add_arithmetic(const onnx::NodeProto &node, const std::string &out) {
        const std::string &op = node.op_type();
        if (node.input_size() != 2) fail(node, "expected 2 inputs");
        const Tensor *c0 = constant(node, 0), *c1 = constant(node, 1);
        if (c0 && c1) fail(node, "both inputs are constants; cortado computes on the network's data only");
        // Before opset 7 only B broadcasts, and only with broadcast=1: its dims lie at `axis` of
        // A's (by default, A's last ones). Given A's rank, numpy's alignment says the same.
        Tensor aligned;
        if (opset_ < 7 && c1 && int_attribute(node, "broadcast", 0) != 0 && !c1->dims.empty()) {
            const size_t rank = shape_of(data_input(node, 0)).size();
            const size_t b_rank = c1->dims.size();
            int64_t axis = attribute(node, "axis") ? int_attribute(node, "axis", 0) : int64_t(rank) - int64_t(b_rank);
            if (axis < 0) axis += int64_t(rank);
            if (axis < 0 || size_t(axis) + b_rank > rank) fail(node, "B's dims do not fit A's from `axis`");
            aligned = *c1;
            aligned.dims = Shape(size_t(axis), 1);
            aligned.dims.insert(aligned.dims.end(), c1->dims.begin(), c1->dims.end());
            aligned.dims.resize(rank, 1);
            c1 = &aligned;
        }
        if (!c0 && !c1) {
            // Before 7, broadcasting follows `axis`, not numpy's alignment from the last axis.
            if (opset_ < 7 && shape_of(data_input(node, 0)) != shape_of(data_input(node, 1)))
                fail(node, "before opset 7 two computed inputs must have one shape");
            const std::vector<int> inputs = broadcast(node, {data_input(node, 0), data_input(node, 1)}, out);
            add_eltwise(node, inputs[0], inputs[1], out);
            return;
        }
        const bool constant_first = c0 != nullptr;
        const Tensor &c = constant_first ? *c0 : *c1;
        if (c.floats.empty() && !c.integers.empty()) fail(node, "the constant must be float32");
        const int x = data_input(node, constant_first ? 1 : 0);
        // What no Scale expresses (a constant divided by data, a constant varying along
        // non-contiguous axes or broadcasting the data) runs element-wise with the constant as data.
        if ((op == "Div" && constant_first) || !scale_axes(c, shape_of(x))) {
            if (opset_ < 7) fail(node, "before opset 7 a constant must vary along contiguous axes of the data, as a Scale's blob");
            const std::vector<int> inputs = broadcast(node, {data_or_constant(node, 0), data_or_constant(node, 1)}, out);
            add_eltwise(node, inputs[0], inputs[1], out);
            return;
        }
        const ConstantAxes axes = constant_axes(node, c, shape_of(x));
        const size_t n = size_t(element_count(axes.blob_shape));
        const std::vector<float> values = axes.scalar ? std::vector<float>(n, c.floats.at(0)) : c.floats;
        std::vector<float> scale(n, 1.0f), bias;
        if (op == "Mul") scale = values;
        if (op == "Div")
            for (size_t i = 0; i < n; i++) {
                scale[i] = 1.0f / values[i];
                if (scale[i] != 0.0f && std::fabs(scale[i]) < std::numeric_limits<float>::min())
                    fail(node, "a divisor of magnitude above 2^126 (its reciprocal is subnormal) is not supported");
            }
        if (op == "Add" || op == "Sub") {
            bias = values;
            if (op == "Sub" && !constant_first)
                for (float &v : bias) v = -v;
            if (op == "Sub" && constant_first) scale.assign(n, -1.0f);
        }
        add_scale(node, x, axes, std::move(scale), std::move(bias), out);
    }

    void add_eltwise(const onnx::NodeProto &node, int a, int b, const std::string &out) {
        const std::string &op = node.op_type();
        EltwiseParams p;
        if (op == "Sub") p.coeff = {1.0f, -1.0f};
        p.operation = op == "Mul"   ? ops::EltwiseOperation::Product
                      : op == "Div" ? ops::EltwiseOperation::Quotient
                                    : ops::EltwiseOperation::Sum;
        add_layer(node, "Eltwise", {a, b}, p, out);
    }

    // Where a constant varies against data of `shape`, aligned from the last axis as numpy aligns
    // them: the contiguous axes [first, last] of the data, or a scalar (which then repeats along
    // the channels, or along the only axis of 1-D data). Anything else is refused.
    struct ConstantAxes {
        int first = 0, last = 0;
        bool scalar = false;
        Shape blob_shape;  // shape[first..last]
    };
    static std::optional<ConstantAxes> scale_axes(const Tensor &c, const Shape &shape) {
        if (c.dims.size() > shape.size()) return std::nullopt;
        const size_t offset = shape.size() - c.dims.size();
        int first = -1, last = -1;
        for (size_t i = 0; i < c.dims.size(); i++) {
            if (c.dims[i] == 1) continue;
            if (c.dims[i] != shape[offset + i]) return std::nullopt;
            if (first < 0) first = int(offset + i);
            last = int(offset + i);
        }
        for (int a = first; first >= 0 && a <= last; a++)
            if (c.dims[size_t(a) - offset] != shape[size_t(a)]) return std::nullopt;
        ConstantAxes axes;
        axes.scalar = first < 0;
        if (axes.scalar) first = last = shape.size() > 1 ? 1 : 0;
        axes.first = first, axes.last = last;
        axes.blob_shape = Shape(shape.begin() + first, shape.begin() + last + 1);
        return axes;
    }
    ConstantAxes constant_axes(const onnx::NodeProto &node, const Tensor &c, const Shape &shape) const {
        const std::optional<ConstantAxes> axes = scale_axes(c, shape);
        if (!axes)
            fail(node,
                 "a constant of shape " + shape_to_string(c.dims) + " against data of shape " + shape_to_string(shape) +
                     ": only a scalar, or values along contiguous axes of the data with 1 elsewhere, are supported");
        return *axes;
    }

    // A Scale layer writing `out`: x * scale + bias (no bias when `bias` is empty), the blobs
    // along `axes` of x.
    void add_scale(const onnx::NodeProto &node, int x, const ConstantAxes &axes, std::vector<float> scale,
                   std::vector<float> bias, const std::string &out, const std::string &suffix = "") {
        ScaleParams p;
        p.axis = axes.first;
        p.num_axes = axes.last - axes.first + 1;
        p.bias_term = !bias.empty();
        Layer &layer = add_layer(node, "Scale", {x}, p, out, suffix);
        std::vector<std::pair<Shape, std::vector<float>>> blobs{{axes.blob_shape, std::move(scale)}};
        if (p.bias_term) blobs.push_back({axes.blob_shape, std::move(bias)});
        add_weights(layer.name, std::move(blobs));
    }

    // Clip: min and max are attributes before opset 11 and optional constant inputs from 11 on.
    void add_clip(const onnx::NodeProto &node, const std::string &out) {
        ActivationParams p{ops::ActivationFunction::Clip, std::numeric_limits<float>::lowest(),
                           std::numeric_limits<float>::max()};
        if (opset_ < 11) {
            p.min = float_attribute(node, "min", p.min);
            p.max = float_attribute(node, "max", p.max);
        } else {
            for (int input : {1, 2}) {
                if (node.input_size() <= input || node.input(input).empty()) continue;
                const Tensor &bound = required_constant(node, input, input == 1 ? "min" : "max");
                if (bound.floats.size() != 1)
                    fail(node, std::string(input == 1 ? "min" : "max") + " must be a float scalar");
                (input == 1 ? p.min : p.max) = bound.floats[0];
            }
        }
        // min above max sets every value to max (the operator's definition), as clamping in that order does.
        add_layer(node, "Clip", {data_input(node, 0)}, p, out);
        act_in_place_after_product(node, out);
    }

    // Pad (constant, reflect, edge, or wrap from 19) of the spatial axes of a 4-D tensor: pads and the value are attributes
    // before opset 11 (`paddings` in opset 1, `pads` from 2) and inputs (pads int64, value a float
    // scalar) from 11 on; from 18 an `axes` input names the axes the pads are for.
    void add_pad(const onnx::NodeProto &node, const std::string &out) {
        const std::string mode = string_attribute(node, "mode", "constant");
        if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
            fail(node, "mode " + mode + " is not supported");
        std::vector<int64_t> pads;
        float value = 0.0f;
        const int input = data_input(node, 0);
        const size_t rank = shape_of(input).size();
        if (opset_ < 11) {
            pads = ints_attribute(node, opset_ < 2 ? "paddings" : "pads");
            value = float_attribute(node, "value", 0.0f);
        } else {
            const Tensor &given = required_constant(node, 1, "pads");
            if (!given.integer) fail(node, "pads must be integers");
            pads = given.integers;
            if (node.input_size() > 2 && !node.input(2).empty()) {
                const Tensor &v = required_constant(node, 2, "constant_value");
                if (v.floats.size() != 1) fail(node, "constant_value must be a float scalar");
                value = v.floats[0];
            }
            if (node.input_size() > 3 && !node.input(3).empty()) {  // pads for these axes only
                const Tensor &axes = required_constant(node, 3, "axes");
                if (!axes.integer || pads.size() != 2 * axes.integers.size())
                    fail(node, "axes must be integers, half as many as the pads");
                std::vector<int64_t> full(2 * rank, 0);
                for (size_t i = 0; i < axes.integers.size(); i++) {
                    int64_t axis = axes.integers[i];
                    if (axis < 0) axis += int64_t(rank);
                    if (axis < 0 || axis >= int64_t(rank)) fail(node, "an axis outside the input's rank");
                    full[size_t(axis)] = pads[i];
                    full[size_t(axis) + rank] = pads[i + axes.integers.size()];
                }
                pads = full;
            }
        }
        if (shape_of(input).size() != 4 || pads.size() != 8)
            fail(node, "only a 4-D input with 8 pads is supported (got rank " + std::to_string(shape_of(input).size()) +
                           ", " + std::to_string(pads.size()) + " pads)");
        if (pads[0] || pads[1] || pads[4] || pads[5])
            fail(node, "only the spatial axes (2 and 3) may be padded, not the batch or the channels");
        PadParams p;
        p.top = checked(node, pads[2], "pads", 0), p.left = checked(node, pads[3], "pads", 0);
        p.bottom = checked(node, pads[6], "pads", 0), p.right = checked(node, pads[7], "pads", 0);
        p.value = value;
        p.mode = mode;
        const Shape &x = shape_of(input);
        if (mode == "reflect" && (std::max(p.top, p.bottom) >= x[2] || std::max(p.left, p.right) >= x[3]))
            fail(node, "reflect pads must be smaller than the plane they reflect");
        add_layer(node, "Pad", {input}, p, out);
    }

    // BatchNormalization as Caffe's BatchNorm (mean, variance, scale factor 1) then Scale
    // (gamma, beta).
    void add_batch_norm(const onnx::NodeProto &node, const std::string &out) {
        // is_test (before opset 7) and consumed_inputs (opset 1) change nothing at inference;
        // spatial (before 9) must keep its default.
        for (int i = 1; i < node.output_size(); i++)
            if (!node.output(i).empty() && (uses_[node.output(i)] > 0 || graph_outputs_.count(node.output(i))))
                fail(node, "training outputs (running mean and variance) are not supported");
        if (int_attribute(node, "training_mode", 0) != 0) fail(node, "training_mode=1 is not supported");
        if (int_attribute(node, "spatial", 1) == 0) fail(node, "spatial=0 (per-element statistics) is not supported");
        const Tensor &gamma = required_constant(node, 1, "scale");
        const Tensor &beta = required_constant(node, 2, "B");
        const Tensor &mean = required_constant(node, 3, "mean");
        const Tensor &var = required_constant(node, 4, "var");
        const int64_t channels = int64_t(gamma.floats.size());
        for (const Tensor *t : {&beta, &mean, &var})
            if (int64_t(t->floats.size()) != channels) fail(node, "scale, B, mean and var must have the same length");
        BatchNormParams bn;
        bn.eps = float_attribute(node, "epsilon", 1e-5f);
        Layer &normalise = add_layer(node, "BatchNorm", {data_input(node, 0)}, bn, out + "/normalised", "/normalise");
        add_weights(normalise.name,
                    {{Shape{channels}, mean.floats}, {Shape{channels}, var.floats}, {Shape{1}, {1.0f}}});
        ScaleParams scale;
        scale.bias_term = true;
        Layer &affine = add_layer(node, "Scale", {values_[out + "/normalised"]}, scale, out);
        add_weights(affine.name, {{Shape{channels}, gamma.floats}, {Shape{channels}, beta.floats}});
    }

    // ---- Linear quantization (frontend/onnx_quantization.h) ----

    // `evaluate()`, with a FoldError reported as the node's.
    template <typename Evaluate>
    auto evaluated(const onnx::NodeProto &node, Evaluate &&evaluate) -> decltype(evaluate()) {
        try {
            return evaluate();
        } catch (const FoldError &e) {
            fail(node, e.what());
        }
    }

    // The scale (input `scale_input`) and optional zero point (the input after it) of a
    // QuantizeLinear, DequantizeLinear or QLinear operand on a tensor of `dims`.
    LinearQuantization quantization_of(const onnx::NodeProto &node, int scale_input, int64_t axis, const Shape &dims,
                                       int default_type) {
        const Tensor &scale = required_constant(node, scale_input, "the scale");
        const Tensor *zero_point = constant(node, scale_input + 1);
        if (node.input_size() > scale_input + 1 && !node.input(scale_input + 1).empty() && !zero_point)
            fail(node, "the zero point must be a constant");
        if (int_attribute(node, "block_size", 0) != 0) fail(node, "blocked quantization (block_size) is not supported");
        return evaluated(node, [&] { return linear_quantization(scale, zero_point, axis, dims, default_type); });
    }

    // The quantization of computed data that a node reads as integers (input `input`), checked
    // against the node's own parameters for it (from `scale_input`).
    const LinearQuantization &integer_input(const onnx::NodeProto &node, int input, int scale_input) {
        const auto found = quantized_.find(node.input(input));
        if (found == quantized_.end())
            fail(node, "input '" + node.input(input) +
                           "' must be integers made by QuantizeLinear or a QLinear op (cortado's input is float)");
        const LinearQuantization given = quantization_of(node, scale_input, 1, shape_of(value_of(node.input(input), "input")),
                                                         onnx::TensorProto::UINT8);
        if (!(given == found->second))
            fail(node, "input '" + node.input(input) + "' is read with another scale or zero point than it was made with");
        return found->second;
    }

    // A Quantize activation writing `out` from value `x`: the integers of `how`, held dequantized.
    void add_quantize(const onnx::NodeProto &node, int x, const LinearQuantization &how, const std::string &out,
                      const std::string &suffix = "") {
        if (!how.per_tensor())
            fail(node, "per-axis quantization of computed data is not supported (one scale and zero point per tensor)");
        ActivationParams p;
        p.function = ops::ActivationFunction::Quantize;
        p.alpha = how.scales[0], p.beta = float(how.zero_points[0]);
        p.min = float(how.lowest), p.max = float(how.highest);
        add_layer(node, "QuantizeLinear", {x}, p, out, suffix);
        quantized_[out] = how;
    }

    // QuantizeLinear: of a constant, its integers; of computed data, a Quantize activation.
    void convert_quantize(const onnx::NodeProto &node, const std::string &out) {
        // Before opset 21 the output type is the zero point's, uint8 without one.
        int64_t type = int_attribute(node, "output_dtype", 0);
        if (type == 0) type = onnx::TensorProto::UINT8;
        const Tensor *x = constant(node, 0);
        const int data = x ? -1 : data_input(node, 0);
        const LinearQuantization how =
            quantization_of(node, 1, int_attribute(node, "axis", 1), x ? x->dims : shape_of(data), int(type));
        if (int64_t(how.highest) - how.lowest > 65535) fail(node, "quantization to INT32 is not supported");
        if (x) {
            constants_[out] = evaluated(node, [&] { return quantize_constant(*x, how); });
            return;
        }
        add_quantize(node, data, how, out);
        act_in_place_after_product(node, out);
    }

    // DequantizeLinear: of an integer constant, its floats; of integers QuantizeLinear made, no
    // step, or an affine step where it reads them with another scale or zero point.
    void convert_dequantize(const onnx::NodeProto &node, const std::string &out) {
        const int64_t axis = int_attribute(node, "axis", 1);
        if (constant(node, 0)) {
            dequantize_constant_input(node, 0, 1, axis, out);
            return;
        }
        const auto made = quantized_.find(node.input(0));
        if (made == quantized_.end())
            fail(node, "input '" + node.input(0) +
                           "' must be a constant or integers made by QuantizeLinear or a QLinear op");
        const int x = value_of(node.input(0), "input");
        const LinearQuantization read = quantization_of(node, 1, axis, shape_of(x), onnx::TensorProto::UINT8);
        if (!read.per_tensor()) fail(node, "per-axis dequantization of computed data is not supported");
        if (read == made->second) {
            values_[out] = x;
            return;
        }
        // (q - z') s' with q = v / s + z: v s'/s + (z - z') s'.
        ActivationParams p;
        p.function = ops::ActivationFunction::Power;
        p.alpha = read.scales[0] / made->second.scales[0];
        p.beta = float(made->second.zero_points[0] - read.zero_points[0]) * read.scales[0];
        add_layer(node, "DequantizeLinear", {x}, p, out);
    }

    // The integer constant input `input` dequantized by the parameters from `scale_input` along
    // `axis`, as the float constant `name`; remembered, so that a convolution reading it keeps
    // the weights' own scales (model_int8_weight_scales).
    const LinearQuantization &dequantize_constant_input(const onnx::NodeProto &node, int input, int scale_input,
                                                        int64_t axis, const std::string &name) {
        const Tensor &q = required_constant(node, input, "the quantized input");
        const LinearQuantization how = quantization_of(node, scale_input, axis, q.dims, q.data_type);
        constants_[name] = evaluated(node, [&] { return dequantize_constant(q, how); });
        return dequantized_constants_[name] = how;
    }

    // QLinearConv and QLinearMatMul: the float op on the operands dequantized, then its output
    // quantized. A QLinearConv's int32 bias is dequantized by the input's scale times each output
    // channel's weight scale.
    void convert_qlinear(const onnx::NodeProto &node, const std::string &out) {
        const bool conv = node.op_type() == "QLinearConv";
        const LinearQuantization &in = integer_input(node, 0, 1);
        onnx::NodeProto planar = node;
        planar.set_op_type(conv ? "Conv" : "MatMul");
        planar.clear_input();
        planar.add_input(node.input(0));
        const Shape &w = required_constant(node, 3, conv ? "the weights" : "B").dims;
        const std::string weights = node.input(3) + "/dequantized/" + node_name(node);
        const LinearQuantization &how =
            dequantize_constant_input(node, 3, 4, conv ? 0 : int64_t(w.size()) - 1, weights);
        planar.add_input(weights);
        if (conv && node.input_size() > 8 && !node.input(8).empty()) {
            const Tensor &bias = required_constant(node, 8, "the bias");
            if (!bias.integer || bias.count() != w.at(0))
                fail(node, "the bias must be " + std::to_string(w.at(0)) + " integers (int32), one per output channel");
            const std::vector<float> scales = scales_along_axis0(how, w.at(0));
            Tensor floats;
            floats.dims = bias.dims;
            for (int64_t c = 0; c < bias.count(); c++)
                floats.floats.push_back(float(double(bias.integers[size_t(c)]) * in.scales[0] * scales[size_t(c)]));
            const std::string name = node.input(8) + "/dequantized/" + node_name(node);
            constants_[name] = std::move(floats);
            planar.add_input(name);
        }
        if (conv) convert_conv(planar, out + "/float");
        else add_gemm(planar, out + "/float");
        const int product = values_.at(out + "/float");
        add_quantize(node, product, quantization_of(node, 6, 1, shape_of(product), onnx::TensorProto::UINT8),
                     out, "/quantize");
        // In place, so that fusion folds the quantization into the product.
        graph_.values[product].blob_name = out;
    }

    // Refuses a node that reads integers (quantized_) other than DequantizeLinear and the QLinear
    // ops, which read them, and the ops that pass them on unchanged (first input only): any
    // other would compute on the dequantized floats.
    bool passes_integers_on(const onnx::NodeProto &node) const {
        static const std::set<std::string> ops = {"MaxPool", "Reshape",   "Flatten", "Transpose",
                                                  "Squeeze", "Unsqueeze", "Identity"};
        return ops.count(node.op_type()) > 0;
    }
    void check_integer_inputs(const onnx::NodeProto &node) const {
        static const std::set<std::string> readers = {"DequantizeLinear", "QLinearConv", "QLinearMatMul"};
        if (readers.count(node.op_type())) return;
        for (int i = 0; i < node.input_size(); i++)
            if (quantized_.count(node.input(i)) && !(i == 0 && passes_integers_on(node)))
                fail(node, "reads '" + node.input(i) +
                               "', integers made by QuantizeLinear or a QLinear op; cortado reads those only in "
                               "DequantizeLinear, QLinearConv, QLinearMatMul, MaxPool and reshapes");
    }

    std::string path_;
    ImportOptions options_;
    int64_t opset_ = 0;
    Graph graph_;
    std::map<std::string, Tensor> constants_;
    std::map<std::string, int> values_;  // tensor name -> value id
    std::map<std::string, int> uses_;    // tensor name -> how many nodes (or the graph output) read it
    std::set<std::string> layer_names_;
    std::vector<LayerWeights> weights_;
    std::map<std::string, int> constant_layers_;  // constant name -> its Constant layer's value
    std::map<std::string, LinearQuantization> quantized_;  // computed integers, held dequantized
    std::map<std::string, LinearQuantization> dequantized_constants_;  // floats DequantizeLinear made
    mutable std::map<std::string, std::string> external_files_;  // path -> bytes
    std::set<std::string> graph_outputs_;
    int64_t model_batch_ = 0;     // the model's own fixed batch, when it has one
    size_t inferred_layers_ = 0;  // graph_.layers[0, this) have their output shapes
};

}  // namespace

bool looks_like_onnx(const std::string &bytes) {
    // A ModelProto starts with field 1 (ir_version, a varint): the byte 0x08. No text prototxt
    // starts with a control character.
    return !bytes.empty() && bytes[0] == 0x08;
}

Graph import_onnx_model(const std::string &bytes, const std::string &path, const ImportOptions &options) {
    return OnnxImporter(path, options).run(bytes);
}

}  // namespace cortado
