#include "compiler/reference/reference_interpreter.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <utility>
#include <variant>

namespace cortado::reference {
namespace {

void require(bool condition, const std::string &message) {
    if (!condition) throw std::runtime_error(message);
}

// The blob values computed so far, indexed by Value id.
struct State {
    const Graph &graph;
    std::vector<Tensor> values;
    std::vector<bool> ready;

    const Tensor &get(int id) const {
        require(ready.at(static_cast<size_t>(id)),
                "blob '" + graph.values.at(static_cast<size_t>(id)).blob_name + "' is used before it is computed");
        return values[static_cast<size_t>(id)];
    }

    // Checking against shape inference here means a wrong inferred shape fails loudly in the
    // reference instead of silently shaping the compiled network differently.
    void set(int id, Tensor t) {
        const Value &v = graph.values.at(static_cast<size_t>(id));
        require(t.shape == v.shape, "computed shape " + shape_to_string(t.shape) + " for blob '" + v.blob_name +
                                        "' but shape inference says " + shape_to_string(v.shape));
        values[static_cast<size_t>(id)] = std::move(t);
        ready[static_cast<size_t>(id)] = true;
    }

    // For layers that only move data around: same values, the inferred shape.
    void set_reshaped(int id, const Tensor &in) {
        const Value &v = graph.values.at(static_cast<size_t>(id));
        require(static_cast<int64_t>(in.data.size()) == element_count(v.shape),
                "blob '" + v.blob_name + "' has shape " + shape_to_string(v.shape) + " but " +
                    std::to_string(in.data.size()) + " values");
        set(id, Tensor{v.shape, in.data});
    }
};

template <typename P>
const P &params_of(const Layer &layer) {
    const P *p = std::get_if<P>(&layer.params);
    require(p != nullptr, "parameters do not belong to this layer type");
    return *p;
}

// The layer's learned blobs, which must be exactly `expected` many.
const std::vector<Tensor> &blobs_of(const Layer &layer, const WeightMap &weights, size_t expected) {
    const auto it = weights.find(layer.name);
    require(it != weights.end(), "no weights given");
    require(it->second.size() == expected,
            "expected " + std::to_string(expected) + " weight blobs, got " + std::to_string(it->second.size()));
    return it->second;
}

void require_arity(const Layer &layer, size_t inputs, size_t outputs) {
    require(layer.inputs.size() == inputs && layer.outputs.size() == outputs,
            "expected " + std::to_string(inputs) + " input(s) and " + std::to_string(outputs) + " output(s)");
}

// Whether `anchor` may stand for `own`, a Quantize activation's output (run_graph says when).
bool within_a_step(const Tensor &anchor, const Tensor &own, const ActivationParams &p) {
    if (anchor.data.size() != own.data.size()) return false;
    const double step = p.alpha * (1.0 + 1e-5);
    size_t differing = 0;
    for (size_t i = 0; i < own.data.size(); i++) {
        const double a = anchor.data[i], o = own.data[i];
        if (a == o || (std::isnan(a) && std::isnan(o))) continue;
        if (!(std::fabs(a - o) <= step)) return false;
        // The network's levels are floats, the reference's doubles: only a level a step away counts.
        differing += std::fabs(a - o) > 0.5 * p.alpha;
    }
    return differing * 100 <= own.data.size();
}

void run_layer(const Layer &layer, const WeightMap &weights, State &state, const std::map<int, Tensor> *anchors) {
    const std::string &type = layer.type;
    if (type == "Input") return;  // its outputs are graph inputs, already in place

    std::vector<const Tensor *> in;
    for (int id : layer.inputs) in.push_back(&state.get(id));
    if (const auto *conv = std::get_if<ConvolutionParams>(&layer.params);
        conv && (conv->int8_input || conv->fp16) && anchors)
        if (const auto it = anchors->find(layer.inputs[0]); it != anchors->end()) in[0] = &it->second;

    if (type == "Convolution") {
        const auto &p = params_of<ConvolutionParams>(layer);
        require_arity(layer, p.fused_sum ? 2 : 1, 1);
        const auto &blobs = blobs_of(layer, weights, p.bias_term ? 2 : 1);
        state.set(layer.outputs[0],
                  convolution(*in[0], p, blobs[0], p.bias_term ? &blobs[1] : nullptr, p.fused_sum ? in[1] : nullptr));
    } else if (type == "ReLU") {
        require_arity(layer, 1, 1);
        state.set(layer.outputs[0], relu(*in[0], params_of<ReLUParams>(layer).negative_slope));
    } else if (std::holds_alternative<ActivationParams>(layer.params)) {
        require_arity(layer, 1, 1);
        const auto &p = params_of<ActivationParams>(layer);
        Tensor out = activation(*in[0], p);
        if (p.function == ops::ActivationFunction::Quantize && anchors)
            if (const auto it = anchors->find(layer.outputs[0]);
                it != anchors->end() && within_a_step(it->second, out, p))
                out.data = it->second.data;
        state.set(layer.outputs[0], std::move(out));
    } else if (type == "PReLU") {
        require_arity(layer, 1, 1);
        state.set(layer.outputs[0], prelu(*in[0], blobs_of(layer, weights, 1)[0]));
    } else if (type == "Transpose") {
        require_arity(layer, 1, 1);
        state.set(layer.outputs[0], transpose(*in[0], params_of<TransposeParams>(layer).perm));
    } else if (type == "Crop") {
        require_arity(layer, std::get<CropParams>(layer.params).from_reference ? 2 : 1, 1);
        state.set(layer.outputs[0], crop(*in[0], params_of<CropParams>(layer)));
    } else if (type == "Slice") {
        std::vector<Shape> shapes;
        for (int id : layer.outputs) shapes.push_back(state.graph.values.at(size_t(id)).shape);
        std::vector<Tensor> pieces = slice(*in[0], params_of<SliceParams>(layer).axis, shapes);
        for (size_t i = 0; i < pieces.size(); i++) state.set(layer.outputs[i], std::move(pieces[i]));
    } else if (type == "Deconvolution") {
        require_arity(layer, 1, 1);
        const auto &p = params_of<DeconvolutionParams>(layer);
        const auto &blobs = blobs_of(layer, weights, p.bias_term ? 2 : 1);
        const Shape &out_shape = state.graph.values.at(static_cast<size_t>(layer.outputs[0])).shape;
        state.set(layer.outputs[0], deconvolution(*in[0], p, out_shape, blobs[0], p.bias_term ? &blobs[1] : nullptr));
    } else if (type == "Resize") {
        require_arity(layer, 1, 1);
        state.set(layer.outputs[0], resize(*in[0], params_of<ResizeParams>(layer)));
    } else if (type == "Constant") {
        require_arity(layer, 0, 1);
        state.set(layer.outputs[0], blobs_of(layer, weights, 1)[0]);
    } else if (type == "Expand") {
        require_arity(layer, 1, 1);
        state.set(layer.outputs[0], expand(*in[0], params_of<ExpandParams>(layer).shape));
    } else if (type == "Bias") {
        require_arity(layer, 1, 1);
        const auto &p = params_of<BiasParams>(layer);
        const Tensor &bias = blobs_of(layer, weights, 1)[0];
        Tensor ones = bias;
        std::fill(ones.data.begin(), ones.data.end(), 1.0);
        ScaleParams as_scale;
        as_scale.axis = p.axis, as_scale.num_axes = p.num_axes, as_scale.bias_term = true;
        state.set(layer.outputs[0], scale(*in[0], as_scale, ones, &bias));
    } else if (type == "Pooling") {
        require_arity(layer, 1, 1);
        const Shape &out_shape = state.graph.values.at(static_cast<size_t>(layer.outputs[0])).shape;
        state.set(layer.outputs[0], pooling(*in[0], params_of<PoolingParams>(layer), out_shape));
    } else if (type == "Pad") {
        require_arity(layer, 1, 1);
        state.set(layer.outputs[0], pad(*in[0], params_of<PadParams>(layer)));
    } else if (type == "LRN") {
        require_arity(layer, 1, 1);
        state.set(layer.outputs[0], lrn(*in[0], params_of<LRNParams>(layer)));
    } else if (type == "InnerProduct") {
        require_arity(layer, 1, 1);
        const auto &p = params_of<InnerProductParams>(layer);
        const auto &blobs = blobs_of(layer, weights, p.bias_term ? 2 : 1);
        state.set(layer.outputs[0], inner_product(*in[0], p, blobs[0], p.bias_term ? &blobs[1] : nullptr));
    } else if (type == "Softmax") {
        require_arity(layer, 1, 1);
        state.set(layer.outputs[0], softmax(*in[0], params_of<SoftmaxParams>(layer).axis));
    } else if (type == "Concat") {
        require_arity(layer, in.size(), 1);
        state.set(layer.outputs[0], concat(in, params_of<ConcatParams>(layer).axis));
    } else if (type == "Eltwise") {
        require_arity(layer, in.size(), 1);
        state.set(layer.outputs[0], eltwise(in, params_of<EltwiseParams>(layer)));
    } else if (type == "Dropout" || type == "Flatten" || type == "Reshape") {
        // Dropout is the identity at inference; Flatten and Reshape keep the row-major data.
        require_arity(layer, 1, 1);
        state.set_reshaped(layer.outputs[0], *in[0]);
    } else if (type == "Split") {
        require_arity(layer, 1, layer.outputs.size());
        for (int id : layer.outputs) state.set(id, *in[0]);
    } else if (type == "BatchNorm") {
        require_arity(layer, 1, 1);
        const auto &blobs = blobs_of(layer, weights, 3);
        state.set(layer.outputs[0],
                  batch_norm(*in[0], params_of<BatchNormParams>(layer), blobs[0], blobs[1], blobs[2]));
    } else if (type == "Scale") {
        const auto &p = params_of<ScaleParams>(layer);
        if (layer.inputs.size() == 2) {
            // Caffe's two-bottom form: the scale is the second bottom, over as many axes as it
            // has; a bias is the only blob.
            require_arity(layer, 2, 1);
            ScaleParams computed = p;
            computed.num_axes = int(in[1]->shape.size());
            const Tensor *bias = p.bias_term ? &blobs_of(layer, weights, 1)[0] : nullptr;
            state.set(layer.outputs[0], scale(*in[0], computed, *in[1], bias));
        } else {
            require_arity(layer, 1, 1);
            const auto &blobs = blobs_of(layer, weights, p.bias_term ? 2 : 1);
            state.set(layer.outputs[0], scale(*in[0], p, blobs[0], p.bias_term ? &blobs[1] : nullptr));
        }
    } else {
        throw std::runtime_error("unknown layer type");
    }
}

}  // namespace

std::vector<Tensor> run_graph(const Graph &graph, const WeightMap &weights, const std::vector<Tensor> &inputs,
                              const std::map<int, Tensor> *anchors) {
    require(inputs.size() == graph.inputs.size(), "run_graph: graph has " + std::to_string(graph.inputs.size()) +
                                                      " inputs, got " + std::to_string(inputs.size()));
    State state{graph, std::vector<Tensor>(graph.values.size()), std::vector<bool>(graph.values.size(), false)};
    for (size_t i = 0; i < inputs.size(); ++i) {
        try {
            state.set_reshaped(graph.inputs[i], inputs[i]);
        } catch (const std::exception &e) {
            throw std::runtime_error("input " + std::to_string(i) + ": " + e.what());
        }
    }
    for (const Layer &layer : graph.layers) {
        try {
            run_layer(layer, weights, state, anchors);
        } catch (const std::exception &e) {
            throw std::runtime_error("layer '" + layer.name + "' (" + layer.type + "): " + e.what());
        }
    }
    return std::move(state.values);
}

L2Errors l2_errors(const float *actual, const Tensor &expected) {
    constexpr double infinity = std::numeric_limits<double>::infinity();
    if (static_cast<int64_t>(expected.data.size()) != element_count(expected.shape)) return {infinity, infinity};
    double diff_squared = 0.0, expected_squared = 0.0;
    for (size_t i = 0; i < expected.data.size(); ++i) {
        const double a = actual[i];
        if (!std::isfinite(a)) return {infinity, infinity};
        const double e = expected.data[i];
        diff_squared += (a - e) * (a - e);
        expected_squared += e * e;
    }
    const double rms = expected.data.empty() ? 0.0 : std::sqrt(diff_squared / double(expected.data.size()));
    // A relative error against an all-zero reference is undefined; only an exact match passes.
    if (expected_squared == 0.0) return {diff_squared == 0.0 ? 0.0 : infinity, rms};
    return {std::sqrt(diff_squared / expected_squared), rms};
}

double relative_l2_error(const float *actual, const Tensor &expected) { return l2_errors(actual, expected).relative; }

}  // namespace cortado::reference
