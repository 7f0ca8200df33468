#include "frontend/import_caffe.h"
#include <filesystem>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frontend/caffe.pb.h"
#include "frontend/compile_error.h"
#include "frontend/layer_params_from_proto.h"
#include "frontend/nearest_word.h"
#include "frontend/upgrade_v1.h"
#include "runtime/file_bytes.h"

namespace cortado {
namespace {

using google::protobuf::TextFormat;

class CollectErrors : public google::protobuf::io::ErrorCollector {
  public:
    explicit CollectErrors(std::string path) : path_(std::move(path)) {}
    void AddError(int line, int column, const std::string &message) override {
        text += path_ + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message + "\n";
    }
    // With unknown fields allowed, the parser reports each skipped field as a warning.
    void AddWarning(int line, int column, const std::string &message) override {
        warnings.push_back(Warning{line + 1, column + 1, message});
    }
    struct Warning {
        int line, column;
        std::string message;
    };
    std::string text;
    std::vector<Warning> warnings;

  private:
    std::string path_;
};

// protobuf's text parser recurses once per nested message, also while skipping unknown
// fields, without a depth limit there: a hostile file of deeply nested braces overflows the
// stack. Caffe files nest a few levels; refuse anything deep before parsing.
void check_nesting_depth(const std::string &text, const std::string &path) {
    constexpr int kMaxDepth = 64;
    int depth = 0, line = 1;
    char quote = 0;
    bool comment = false;
    for (size_t i = 0; i < text.size(); i++) {
        const char ch = text[i];
        if (ch == '\n') {
            line++;
            comment = false;
            continue;
        }
        if (comment) continue;
        if (quote) {
            if (ch == '\\') i++;
            else if (ch == quote) quote = 0;
            continue;
        }
        if (ch == '"' || ch == '\'') quote = ch;
        else if (ch == '#') comment = true;
        else if (ch == '{' || ch == '<') {
            if (++depth > kMaxDepth)
                throw CompileError(path + ":" + std::to_string(line) + ": messages nested more than " +
                                   std::to_string(kMaxDepth) + " levels deep");
        } else if (ch == '}' || ch == '>') {
            depth--;
        }
    }
}

bool is_data_layer(const std::string &type) {
    static const std::set<std::string> kData = {"Data",       "ImageData", "HDF5Data",      "MemoryData",
                                                "WindowData", "DummyData", "AnnotatedData", "Python"};
    return kData.count(type) > 0;
}

bool is_training_only(const std::string &type) {
    auto ends_with = [&](const std::string &suffix) {
        return type.size() >= suffix.size() && type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends_with("Loss") || type == "Accuracy" || type == "Silence";
}

// Caffe's NetStateRule matching for the TEST phase with no level or stages.
bool rule_matches_test(const caffe::NetStateRule &rule) {
    if (rule.has_phase() && rule.phase() != caffe::TEST) return false;
    if (rule.has_min_level() && 0 < rule.min_level()) return false;
    if (rule.has_max_level() && 0 > rule.max_level()) return false;
    return rule.stage_size() == 0;
}

bool included_at_test(const caffe::LayerParameter &layer) {
    if (layer.include_size() > 0) {
        for (const auto &rule : layer.include())
            if (rule_matches_test(rule)) return true;
        return false;
    }
    for (const auto &rule : layer.exclude())
        if (rule_matches_test(rule)) return false;
    return true;
}

Shape shape_from_proto(const caffe::BlobShape &proto) {
    Shape shape;
    for (int64_t d : proto.dim()) shape.push_back(d);
    return shape;
}

// The first word of a text, past blanks and # comments, and its line (from 1): what tells a
// prototxt with a typo from a file that is no prototxt at all.
std::pair<std::string, int> first_word(const std::string &text) {
    size_t at = 0;
    while (at < text.size()) {
        if (std::isspace(static_cast<unsigned char>(text[at]))) {
            at++;
        } else if (text[at] == '#') {
            at = text.find('\n', at);
            if (at == std::string::npos) return {"", 0};
        } else {
            break;
        }
    }
    size_t end = at;
    while (end < text.size() && end - at < 40 && !std::isspace(static_cast<unsigned char>(text[end])) &&
           text[end] != ':' && text[end] != '{')
        end++;
    return {text.substr(at, end - at), 1 + int(std::count(text.begin(), text.begin() + at, '\n'))};
}

class Importer {
  public:
    Importer(std::string path, const ImportOptions &options) : path_(std::move(path)), options_(options) {}

    Graph run(const std::string &text) {
        // A prototxt is text: a NUL byte means a binary file (a caffemodel given as the network).
        if (text.find('\0') != std::string::npos)
            throw CompileError(path_ +
                               ": is not a text prototxt (it holds binary data; a .caffemodel goes to --weights)");
        check_nesting_depth(text, path_);
        caffe::NetParameter net;
        TextFormat::Parser parser;
        CollectErrors errors(path_);
        parser.RecordErrorsTo(&errors);
        parser.AllowUnknownField(true);  // data/transform/loss parameters we never read
        TextFormat::ParseInfoTree locations;
        parser.WriteLocationsTo(&locations);
        if (!parser.ParseFromString(text, &net)) {
            if (errors.text.empty()) errors.text = path_ + ": not a valid Caffe prototxt\n";
            // Only where the parser failed on that first word's line: unknown fields are allowed,
            // so a file that starts with one may still be a prototxt with a later mistake.
            const auto [word, line] = first_word(text);
            if (!caffe::NetParameter::descriptor()->FindFieldByName(word) &&
                errors.text.rfind(path_ + ":" + std::to_string(line) + ":", 0) == 0)
                errors.text = path_ + ": is not a Caffe prototxt (it starts with '" + word +
                              "', which is no field of a network)\n" + errors.text;
            throw CompileError(errors.text.substr(0, errors.text.size() - 1));
        }
        if (net.layer_size() > 0 && net.layers_size() > 0)
            throw CompileError(path_ + ": mixes V2 'layer' and legacy V1 'layers' entries");

        // A prototxt without `name:` (SqueezeNet's) is named after its file.
        const std::string stem = std::filesystem::path(path_).stem().string();
        graph_.name = !net.name().empty() ? net.name() : !stem.empty() ? stem : "net";
        add_legacy_inputs(net);

        const bool legacy = net.layers_size() > 0;
        const auto *descriptor = caffe::NetParameter::descriptor();
        const auto *layer_field = descriptor->FindFieldByName(legacy ? "layers" : "layer");
        const int count = legacy ? net.layers_size() : net.layer_size();
        std::string unsupported;
        std::vector<int> start_lines;
        std::vector<std::string> compiled_names;  // empty for layers dropped at inference
        std::vector<std::pair<caffe::LayerParameter, SourceLocation>> layers;
        for (int i = 0; i < count; i++) {
            SourceLocation where{path_, 0};
            where.line = locations.GetLocation(layer_field, i).line + 1;
            caffe::LayerParameter layer = legacy ? upgrade_v1_layer(net.layers(i), where) : net.layer(i);
            start_lines.push_back(where.line);
            compiled_names.emplace_back();
            if (!included_at_test(layer)) continue;
            if (!is_data_layer(layer.type()) && !is_training_only(layer.type())) compiled_names.back() = layer.name();
            if (!is_supported(layer.type()) && !is_data_layer(layer.type()) && !is_training_only(layer.type()) &&
                layer.type() != "Input") {
                // A real Caffe type is named as such; anything else may be a misspelling.
                const std::string near =
                    is_other_caffe_type(layer.type())
                        ? ""
                        : nearest_word(layer.type(),
                                       std::vector<std::string>(supported_types().begin(), supported_types().end()));
                unsupported += "\n  " + where.to_string() + ": layer '" + layer.name() + "' has type '" + layer.type() +
                               "'" + (near.empty() ? "" : " (did you mean " + near + "?)");
                continue;
            }
            layers.emplace_back(std::move(layer), where);
        }
        // Every unsupported type, before any check of how layers connect: a skipped layer would
        // otherwise be reported as the next layer's missing bottom.
        if (!unsupported.empty())
            throw CompileError(path_ + ": unsupported layer types (cortado compiles " + supported_list() +
                               "):" + unsupported);
        for (const auto &[layer, where] : layers) add_layer(layer, where);
        reject_unknown_fields(errors.warnings, start_lines, compiled_names);
        finish_outputs();
        apply_input_options();
        return std::move(graph_);
    }

  private:
    // The parser skips fields our caffe.proto lacks, which is right for the parameters of data
    // and loss layers we drop, but a misspelt field in a layer we compile (`padd: 1`) would
    // silently change the network: that is an error.
    void reject_unknown_fields(const std::vector<CollectErrors::Warning> &warnings, const std::vector<int> &start_lines,
                               const std::vector<std::string> &compiled_names) const {
        std::string problems;
        for (const auto &w : warnings) {
            auto after = std::upper_bound(start_lines.begin(), start_lines.end(), w.line);
            if (after != start_lines.begin()) {
                const size_t layer = static_cast<size_t>(after - start_lines.begin()) - 1;
                if (compiled_names[layer].empty()) continue;
                problems += "\n  " + path_ + ":" + std::to_string(w.line) + ":" + std::to_string(w.column) +
                            ": layer '" + compiled_names[layer] + "': " + w.message;
            } else {
                problems +=
                    "\n  " + path_ + ":" + std::to_string(w.line) + ":" + std::to_string(w.column) + ": " + w.message;
            }
        }
        if (!problems.empty()) throw CompileError(path_ + ": fields cortado does not know (misspelt?):" + problems);
    }

    static const std::set<std::string> &supported_types() {
        static const std::set<std::string> kTypes = {
            "Convolution", "ReLU",      "Sigmoid", "TanH",    "Clip",  "Pooling", "LRN",   "InnerProduct", "Softmax",
            "Concat",      "Eltwise",   "Dropout", "Split",   "Flatten", "Reshape", "BatchNorm", "Scale", "ELU",
            "AbsVal",      "BNLL",      "Exp",     "Log",     "Power", "PReLU",   "Bias",  "Slice",        "Crop", "Deconvolution"};
        return kTypes;
    }
    static bool is_supported(const std::string &type) { return supported_types().count(type); }
    // Caffe's own layer types that cortado does not compile (besides data and loss layers).
    static bool is_other_caffe_type(const std::string &type) {
        static const std::set<std::string> kTypes = {
            "SPP",    "Threshold", "Embed", "Tile",   "Reduction", "ArgMax", "MVN",
            "Im2col",        "Filter", "Swish", "RNN",   "LSTM",   "Recurrent", "Parameter", "Python"};
        return kTypes.count(type);
    }
    static std::string supported_list() {
        std::string list;
        for (const auto &t : supported_types()) list += (list.empty() ? "" : ", ") + t;
        return list;
    }

    void add_legacy_inputs(const caffe::NetParameter &net) {
        if (net.input_size() == 0) return;
        SourceLocation where{path_, 0};
        for (int i = 0; i < net.input_size(); i++) {
            Shape shape;
            if (net.input_shape_size() > i) {
                shape = shape_from_proto(net.input_shape(i));
            } else if (net.input_dim_size() >= 4 * (i + 1)) {
                for (int d = 0; d < 4; d++) shape.push_back(net.input_dim(4 * i + d));
            } else if (options_.input_shape.empty()) {
                throw CompileError(path_ + ": input '" + net.input(i) +
                                   "' has no input_shape or input_dim; give --input-shape");
            }
            add_input(net.input(i), shape, where, "input");
        }
    }

    void add_input(const std::string &blob, const Shape &shape, const SourceLocation &where,
                   const std::string &layer_name) {
        if (latest_.count(blob))
            throw CompileError(where.to_string() + ": layer '" + layer_name + "': top '" + blob +
                               "' is already produced by an earlier layer");
        int id = graph_.add_value(blob, shape);
        latest_[blob] = id;
        graph_.inputs.push_back(id);
        input_layer_names_.push_back(layer_name);
    }

    void add_layer(const caffe::LayerParameter &proto, const SourceLocation &where) {
        const std::string name = proto.name().empty() ? "(unnamed)" : proto.name();
        auto fail = [&](const std::string &message) {
            throw CompileError(where.to_string() + ": layer '" + name + "' (" + proto.type() + "): " + message);
        };
        if (proto.type() == "Input") {
            for (int t = 0; t < proto.top_size(); t++) {
                Shape shape;
                const auto &shapes = proto.input_param().shape();
                if (shapes.size() == 1) shape = shape_from_proto(shapes[0]);
                else if (t < shapes.size()) shape = shape_from_proto(shapes[t]);
                else if (options_.input_shape.empty())
                    fail("no shape for top '" + proto.top(t) + "'; give --input-shape");
                add_input(proto.top(t), shape, where, name);
            }
            return;
        }
        if (is_data_layer(proto.type())) {
            if (proto.top_size() == 0) fail("a data layer needs a top");
            add_input(proto.top(0), {}, where, name);
            for (int t = 1; t < proto.top_size(); t++) unavailable_[proto.top(t)] = name;
            return;
        }
        if (is_training_only(proto.type())) {
            for (const auto &top : proto.top()) unavailable_[top] = name;
            return;
        }

        Layer layer;
        layer.name = name;
        layer.type = proto.type();
        layer.location = where;
        if (!layer_names_.insert(name).second) fail("a layer of this name already exists");
        for (const auto &bottom : proto.bottom()) {
            auto it = latest_.find(bottom);
            if (it == latest_.end()) {
                auto gone = unavailable_.find(bottom);
                if (gone != unavailable_.end())
                    fail("bottom '" + bottom + "' comes from '" + gone->second + "', which is dropped for inference");
                fail("bottom '" + bottom + "' is produced by no earlier layer");
            }
            layer.inputs.push_back(it->second);
        }
        std::set<std::string> bottoms(proto.bottom().begin(), proto.bottom().end());
        std::set<std::string> tops;
        for (const auto &top : proto.top()) {
            if (!tops.insert(top).second) fail("top '" + top + "' is listed twice");
            if (latest_.count(top) && !bottoms.count(top))
                fail("top '" + top +
                     "' is already produced by an earlier layer (only in-place reuse of a "
                     "bottom is allowed)");
        }
        for (const auto &top : proto.top()) {
            int id = graph_.add_value(top);
            latest_[top] = id;
            layer.outputs.push_back(id);
        }
        layer.params = convert_layer_params(proto, where);
        graph_.layers.push_back(std::move(layer));
    }

    void finish_outputs() {
        std::vector<bool> used = graph_.consumed();
        for (const auto &[blob, id] : latest_) {
            (void)blob;
            bool is_input = false;
            for (int in : graph_.inputs) is_input |= in == id;
            if (!used[id] && !is_input) graph_.outputs.push_back(id);
        }
        std::sort(graph_.outputs.begin(), graph_.outputs.end());
        if (graph_.inputs.empty()) throw CompileError(path_ + ": the network has no input");
        if (graph_.layers.empty()) throw CompileError(path_ + ": the network has no layers");
        if (graph_.outputs.empty()) throw CompileError(path_ + ": the network has no output");
    }

    void apply_input_options() {
        if (!options_.input_shape.empty()) {
            if (graph_.inputs.size() != 1)
                throw CompileError(path_ +
                                   ": --input-shape needs a network with one input, "
                                   "this one has " +
                                   std::to_string(graph_.inputs.size()));
            graph_.values[graph_.inputs[0]].shape = options_.input_shape;
        }
        for (size_t i = 0; i < graph_.inputs.size(); i++) {
            Shape &shape = graph_.values[graph_.inputs[i]].shape;
            if (shape.empty())
                throw CompileError(path_ + ": input '" + graph_.values[graph_.inputs[i]].blob_name + "' (layer '" +
                                   input_layer_names_[i] + "') has no shape; give --input-shape N,C,H,W");
            if (options_.batch > 0) shape[0] = options_.batch;
        }
    }

    std::string path_;
    ImportOptions options_;
    Graph graph_;
    std::map<std::string, int> latest_;               // blob name -> newest Value id
    std::map<std::string, std::string> unavailable_;  // blob -> dropped layer that made it
    std::set<std::string> layer_names_;
    std::vector<std::string> input_layer_names_;
};

}  // namespace

Graph import_caffe_prototxt_text(const std::string &text, const std::string &display_path,
                                 const ImportOptions &options) {
    return Importer(display_path, options).run(text);
}

Graph import_caffe_prototxt(const std::string &path, const ImportOptions &options) {
    std::string text, error;
    if (!read_file_bytes(path, &text, &error)) throw CompileError(error);
    return import_caffe_prototxt_text(text, path, options);
}

}  // namespace cortado
