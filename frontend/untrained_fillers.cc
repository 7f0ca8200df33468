#include "frontend/untrained_fillers.h"

#include <variant>

namespace cortado {
namespace {

// Absent from the prototxt, so Caffe's default: constant 0.
bool unset(const Filler &filler) { return !filler.given; }

template <typename Params>
bool replace_unset(Params &p) {
    bool replaced = false;
    if (unset(p.weight_filler)) {
        p.weight_filler = Filler{};
        p.weight_filler.type = "xavier";
        p.weight_filler.given = true;
        replaced = true;
    }
    if (p.bias_term && unset(p.bias_filler)) {
        p.bias_filler = Filler{};
        p.bias_filler.type = "uniform";
        p.bias_filler.min = -0.1f;
        p.bias_filler.max = 0.1f;
        p.bias_filler.given = true;
        replaced = true;
    }
    return replaced;
}

}  // namespace

std::vector<std::string> fill_untrained_weights(Graph &graph) {
    std::vector<std::string> replaced;
    for (Layer &layer : graph.layers) {
        bool changed = false;
        if (auto *conv = std::get_if<ConvolutionParams>(&layer.params)) changed = replace_unset(*conv);
        else if (auto *ip = std::get_if<InnerProductParams>(&layer.params)) changed = replace_unset(*ip);
        else if (auto *deconv = std::get_if<DeconvolutionParams>(&layer.params)) changed = replace_unset(*deconv);
        if (changed) replaced.push_back(layer.name);
    }
    return replaced;
}

std::string stand_in_weights_note(const std::vector<std::string> &layers) {
    if (layers.empty()) return "";
    std::string names;
    for (size_t i = 0; i < layers.size() && i < 3; i++) names += (i ? ", " : "") + layers[i];
    if (layers.size() > 3) names += ", ...";
    return std::to_string(layers.size()) + (layers.size() == 1 ? " layer" : " layers") + " without fillers (" + names +
           "; a deploy prototxt) get random stand-in weights";
}

}  // namespace cortado
