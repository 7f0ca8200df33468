#include "frontend/int8_precision.h"

#include <cmath>
#include <set>

#include "frontend/compile_error.h"

namespace cortado {

bool int8_scale_usable(float scale) { return scale > 0 && std::isfinite(scale) && std::isfinite(1.0f / scale); }

std::string int8_unsupported_reason(const ConvolutionParams &p, int64_t in_channels) {
    if (p.group > 1 && in_channels / p.group < 2) return "depthwise (one input channel per group)";
    return "";
}

void apply_int8_precision(Graph &graph, const std::map<std::string, Int8Input> &layers, const std::string &source) {
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
        p->int8_input = q;
    }
    for (const auto &[name, q] : layers)
        if (!found.count(name))
            throw CompileError(source + ": layer '" + name + "' is not in network '" + graph.name + "'");
}

}  // namespace cortado
