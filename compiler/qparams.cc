#include "compiler/qparams.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frontend/compile_error.h"
#include "frontend/int8_precision.h"

namespace cortado {

namespace {
constexpr char kFormat[] = "cortado-qparams";
constexpr int kVersion = 1;
}  // namespace

QuantizationParams read_qparams(const std::string &path) {
    std::ifstream file(path);
    if (!file) throw CompileError(path + ": cannot read the quantization parameters");
    std::stringstream text;
    text << file.rdbuf();
    return parse_qparams(text.str(), path);
}

QuantizationParams parse_qparams(const std::string &text, const std::string &path) {
    QuantizationParams q;
    std::string entry;
    try {
        const nlohmann::json json = nlohmann::json::parse(text);
        if (json.value("format", "") != kFormat || json.value("version", 0) != kVersion)
            throw CompileError(path + ": not a " + kFormat + " file of version " + std::to_string(kVersion) +
                               " (written by `cortado quantize`)");
        q.network = json.value("network", "");
        q.method = json.value("method", "");
        q.images = json.value("images", 0);
        for (const auto &[name, layer] : json.at("layers").items()) {
            entry = "layer '" + name + "'";
            Int8LayerCalibration c;
            c.input = layer.at("input").get<std::string>();
            c.min = layer.at("min").get<double>();
            c.max = layer.at("max").get<double>();
            c.quantization.scale = layer.at("scale").get<float>();
            c.quantization.zero_point = layer.at("zero_point").get<int>();
            if (!int8_scale_usable(c.quantization.scale) || c.quantization.zero_point < 0 ||
                c.quantization.zero_point > 255)
                throw CompileError(path + ": " + entry +
                                   ": scale must be positive with a finite reciprocal, zero_point within 0..255");
            c.quantization.input_blob = c.input;
            q.layers[name] = c;
        }
        entry.clear();
        if (json.contains("fp32_layers"))
            for (const auto &[name, why] : json.at("fp32_layers").items()) q.fp32_layers[name] = why.get<std::string>();
    } catch (const nlohmann::json::exception &e) {
        throw CompileError(path + ": " + (entry.empty() ? "" : entry + ": ") + "malformed quantization parameters (" +
                           e.what() + ")");
    }
    return q;
}

void write_qparams(const QuantizationParams &q, const std::string &path) {
    nlohmann::ordered_json json;
    json["format"] = kFormat;
    json["version"] = kVersion;
    json["network"] = q.network;
    json["method"] = q.method;
    json["images"] = q.images;
    nlohmann::ordered_json layers = nlohmann::ordered_json::object();
    for (const auto &[name, c] : q.layers)
        layers[name] = {{"input", c.input},
                        {"min", c.min},
                        {"max", c.max},
                        {"scale", c.quantization.scale},
                        {"zero_point", c.quantization.zero_point}};
    json["layers"] = layers;
    json["fp32_layers"] = q.fp32_layers;
    std::ofstream file(path);
    file << json.dump(2) << "\n";
    if (!file) throw CompileError(path + ": cannot write the quantization parameters");
}

std::map<std::string, Int8Input> int8_layers(const QuantizationParams &q) {
    std::map<std::string, Int8Input> layers;
    for (const auto &[name, c] : q.layers) layers[name] = c.quantization;
    return layers;
}

}  // namespace cortado
