#include "tools/bench/bench_networks.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include "compiler/loaded_network.h"
#include "compiler/network_builder.h"
#include "compiler/network_weights.h"
#include "compiler/reference/reference_ops.h"
#include "frontend/compile_error.h"
#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/layer_cost.h"
#include "frontend/shape_inference.h"
#include "frontend/untrained_fillers.h"
#include "tools/bench/peers.h"
#include "tools/cli_environment.h"

namespace cortado {
namespace {

// Every blob the network writes, by value id (fusion keeps value ids, so the plan's tensors
// name values of the fused graph).
struct Capture {
    const NetworkPlan *plan;
    int call = 0;
    std::map<int, std::vector<float>> values;
};

void capture_blob(void *user, const char *, int rank, const int64_t *shape, const float *data) {
    auto *c = static_cast<Capture *>(user);
    const int tensor = c->call == 0 ? c->plan->input_tensor : c->plan->steps[c->call - 1].output_tensor;
    c->call++;
    int64_t count = 1;
    for (int d = 0; d < rank; d++) count *= shape[d];
    c->values[c->plan->tensors[tensor].value].assign(data, data + count);
}

// The residual sum (when `residual` is given) and the activations fused into the layer, on the
// peer's output.
template <typename Params>
void apply_fused(std::vector<float> &data, const Params &p, const std::vector<float> *residual = nullptr) {
    for (size_t i = 0; i < data.size(); i++)
        data[i] = float(reference::apply_fused(residual ? double(data[i]) + (*residual)[i] : data[i], p));
}

// How the per-layer table of a case groups a layer: convolutions by kernel, stride and groups.
std::string layer_kind(const Layer &layer) {
    if (const auto *p = std::get_if<ConvolutionParams>(&layer.params)) {
        std::string kind = "conv " + std::to_string(p->kernel_h) + "x" + std::to_string(p->kernel_w);
        if (p->stride_h != 1 || p->stride_w != 1)
            kind += " s" + std::to_string(p->stride_h) +
                    (p->stride_w != p->stride_h ? "x" + std::to_string(p->stride_w) : "");
        if (p->group > 1) kind += " g" + std::to_string(p->group);
        return kind;
    }
    if (std::holds_alternative<InnerProductParams>(layer.params)) return "inner product";
    return layer.type;
}

// cortado's time per step inside the whole network, from as many profiled runs as timed ones
// (at most 10), after the timing: profiling synchronises after every step.
std::vector<double> profiled_step_ms(LoadedNetwork &net, const std::vector<float> &input, std::vector<float> &output,
                                     int iterations) {
    std::vector<double> ms(size_t(net.layer_count()), 0.0);
    const int runs = std::clamp(iterations, 1, 10);
    net.set_profiling(true);
    for (int i = 0; i < runs; i++) {
        net.forward(input.data(), output.data());
        for (int l = 0; l < net.layer_count(); l++) ms[size_t(l)] += net.layer_time_ms(l) / runs;
    }
    net.set_profiling(false);
    return ms;
}

int64_t product(const Shape &shape, size_t begin, size_t end) {
    int64_t p = 1;
    for (size_t i = begin; i < end && i < shape.size(); i++) p *= shape[i];
    return p;
}

}  // namespace

std::vector<NetworkBenchCase> shipped_network_cases(const std::string &models_dir, bool quick,
                                                    const std::vector<int64_t> &batches,
                                                    const std::vector<std::string> &names) {
    const std::vector<std::pair<std::string, std::vector<int64_t>>> networks = {
        {"lenet.prototxt", {}},        {"cifar10_quick.prototxt", {}},
        {"cifar10_full.prototxt", {}}, {"alexnet.prototxt", {}},
        {"caffenet.prototxt", {}},     {"nin_imagenet_train_val_v1.prototxt", {1, 3, 224, 224}},
        {"googlenet.prototxt", {}}};
    std::vector<NetworkBenchCase> cases;
    for (const std::string &name : names)
        if (std::none_of(networks.begin(), networks.end(),
                         [&](const auto &n) { return n.first == name + ".prototxt"; }))
            throw CompileError(
                "the nets suite has no network '" + name +
                "': lenet, cifar10_quick, cifar10_full, alexnet, caffenet, nin_imagenet_train_val_v1, googlenet");
    for (const auto &[file, shape] : networks) {
        const std::string path = models_dir + "/" + file;
        if (!names.empty() &&
            std::find(names.begin(), names.end(), std::filesystem::path(file).stem().string()) == names.end())
            continue;
        if (!std::filesystem::exists(path))
            throw CompileError(path + ": missing (the nets suite reads ../shared/models)");
        for (int64_t batch : batches.empty() ? std::vector<int64_t>{1, 5, 20} : batches) {
            const bool small =
                file == "lenet.prototxt" || file == "cifar10_quick.prototxt" || file == "alexnet.prototxt";
            if (quick && !(small && batch == 1)) continue;
            cases.push_back({path, shape, int(batch)});
        }
    }
    return cases;
}

Graph load_bench_network(const NetworkBenchCase &c) {
    ImportOptions options;
    options.input_shape = c.input_shape;
    options.batch = c.batch;
    Graph graph = import_caffe_prototxt(c.file, options);
    infer_shapes(graph);
    fill_untrained_weights(graph);
    return graph;
}

std::string bench_network_name(const NetworkBenchCase &c) {
    return std::filesystem::path(c.file).stem().string() + " b" + std::to_string(c.batch);
}

BenchRow bench_network(const NetworkBenchCase &c, const TargetDescription &target, int iterations,
                       const std::string &scratch, const ChoiceOverrides &records, bool fuse) {
    Graph graph = load_bench_network(c);
    if (fuse) fuse_layers(graph);
    const BuiltNetwork built = build_network(graph, "net", target, scratch, cli_build_options_in_process(records));
    LoadedNetwork net(link_shared_library(built, scratch), "net");
    net.create(nullptr, 1);
    const std::vector<LayerWeights> weights = seeded_weights(built.plan, 1);

    std::vector<float> input(size_t(element_count(graph.values[graph.inputs[0]].shape)));
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &v : input) v = uniform(random);
    std::vector<float> output(size_t(element_count(graph.values[graph.outputs[0]].shape)));
    Capture capture{&built.plan, 0, {}};
    net.set_blob_callback(capture_blob, &capture);
    net.forward(input.data(), output.data());
    net.set_blob_callback(nullptr, nullptr);

    BenchRow row{bench_network_name(c), 0, 0, {}, "oneDNN conv+IP sum", {}, 0, false, {}};
    if (uses_tuning_records(built.plan)) {
        const std::string untuned_dir = scratch + "/untuned";
        const BuiltNetwork plain = build_network(graph, "net", target, untuned_dir, cli_build_options_in_process());
        LoadedNetwork untuned(link_shared_library(plain, untuned_dir), "net");
        untuned.create(nullptr, 1);
        std::vector<float> untuned_output(output.size());
        untuned.forward(input.data(), untuned_output.data());
        const AlternatingTimings both = time_alternating(
            iterations, [&] { return wall_ms([&] { net.forward(input.data(), output.data()); }); },
            [&] { return wall_ms([&] { untuned.forward(input.data(), untuned_output.data()); }); });
        row.ours = both.first;
        row.untuned = both.second;
        row.has_untuned = true;
    } else {
        row.ours = time_calls(iterations, [&] { net.forward(input.data(), output.data()); });
    }
    const std::vector<double> step_ms = profiled_step_ms(net, input, output, iterations);
    std::map<std::string, double> peer_ms;  // by layer name
    for (const Layer &layer : graph.layers) {
        row.gflop += layer_cost(graph, layer).flops * 1e-9;
        const auto found =
            std::find_if(weights.begin(), weights.end(), [&](const LayerWeights &w) { return w.layer == layer.name; });
        const Shape &in = graph.values[layer.inputs[0]].shape, &out = graph.values[layer.outputs[0]].shape;
        const bool has_peer = std::holds_alternative<ConvolutionParams>(layer.params) ||
                              std::holds_alternative<InnerProductParams>(layer.params);
        if (has_peer && found == weights.end()) throw CompileError(layer.name + ": no weights to give the peer");
        std::vector<float> theirs;
        PeerTiming peer{};
        if (const auto *p = std::get_if<ConvolutionParams>(&layer.params)) {
            const ConvShape s{int(in[0]),  int(in[1]),  int(in[2]),    int(in[3]),   int(out[1]), p->kernel_h,
                              p->kernel_w, p->stride_h, p->stride_w,   p->pad_h,     p->pad_w,    int(out[2]),
                              int(out[3]), p->group,    p->dilation_h, p->dilation_w};
            const std::vector<float> bias =
                p->bias_term ? found->blobs[1] : std::vector<float>(size_t(s.out_channels), 0.0f);
            peer = onednn_convolution(s, capture.values[layer.inputs[0]], found->blobs[0], bias, &theirs, iterations);
            apply_fused(theirs, *p, p->fused_sum ? &capture.values[layer.inputs[1]] : nullptr);
        } else if (const auto *p = std::get_if<InnerProductParams>(&layer.params)) {
            const size_t axis = size_t(canonical_axis(p->axis, in.size(), layer.name));
            const int m = int(product(in, 0, axis)), k = int(product(in, axis, in.size()));
            const int n = p->num_output;
            std::vector<float> w = found->blobs[0];
            if (p->transpose)  // stored K x N; the peer takes N x K
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < k; i++) w[size_t(j) * k + i] = found->blobs[0][size_t(i) * n + j];
            const std::vector<float> bias = p->bias_term ? found->blobs[1] : std::vector<float>(size_t(n), 0.0f);
            peer = onednn_inner_product(m, n, k, capture.values[layer.inputs[0]], w, bias, &theirs, iterations);
            apply_fused(theirs, *p);
        } else {
            continue;
        }
        const double error = relative_l2_error(capture.values[layer.outputs[0]], theirs);
        if (!(error <= row.error)) row.error = error;  // NaN-safe: a NaN error is always the worst
        peer_ms[layer.name] = peer.median_ms;
        row.theirs.median_ms += peer.median_ms;
        row.theirs.min_ms += peer.min_ms;
        row.theirs.max_ms += peer.max_ms;
    }
    // A step is named by its layers joined by '+'; its first layer has the parameters.
    for (int l = 0; l < net.layer_count(); l++) {
        BenchLayer step{net.layer_name(l), "", step_ms[size_t(l)], -1};
        const std::string first = step.name.substr(0, step.name.find('+'));
        const auto layer = std::find_if(graph.layers.begin(), graph.layers.end(),
                                        [&](const Layer &candidate) { return candidate.name == first; });
        step.kind = layer != graph.layers.end() ? layer_kind(*layer) : "";
        if (const auto peer = peer_ms.find(first); peer != peer_ms.end()) step.peer_ms = peer->second;
        row.layers.push_back(step);
    }
    return row;
}

}  // namespace cortado
