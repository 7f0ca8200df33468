#include "tools/bench/bench_exported.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <sstream>

#include "compiler/install_layout.h"
#include "compiler/int8_support.h"
#include "compiler/loaded_network.h"
#include "compiler/network_builder.h"
#include "compiler/shell_quote.h"
#include "frontend/caffemodel_writer.h"
#include "frontend/compile_error.h"
#include "frontend/fusion.h"
#include "frontend/layer_cost.h"
#include "frontend/load_network.h"
#include "frontend/npy.h"
#include "tools/cli_environment.h"

namespace cortado {
namespace {

const std::vector<std::string> kExportedNetworks = {
    "alexnet",         "resnet18",           "resnet50",          "squeezenet1_1",       "mobilenet_v2",
    "mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0", "shufflenet_v2_x1_0", "densenet121",
    "regnet_y_400mf",  "resnext50_32x4d",    "vgg11_bn",          "fcn_resnet50",        "lraspp_mobilenet_v3_large"};

// Runs `command`, returning what it printed on stdout; throws with `what` when it fails.
std::string output_of(const std::string &command, const std::string &what) {
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(::popen(command.c_str(), "r"), ::pclose);
    if (!pipe) throw CompileError(what + ": cannot run " + command);
    std::string text;
    std::array<char, 512> chunk;
    while (size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe.get())) text.append(chunk.data(), n);
    if (::pclose(pipe.release()) != 0) throw CompileError(what + " failed: " + command);
    return text;
}

}  // namespace

std::vector<ExportedBenchCase> exported_network_cases(const std::string &models_dir,
                                                      const std::vector<int64_t> &batches,
                                                      const std::vector<std::string> &names, bool int8,
                                                      bool seven_bit_weights) {
    for (const std::string &name : names)
        if (std::find(kExportedNetworks.begin(), kExportedNetworks.end(), name) == kExportedNetworks.end()) {
            std::string known;
            for (const std::string &n : kExportedNetworks) known += (known.empty() ? "" : ", ") + n;
            throw CompileError("the exported suite has no network '" + name + "': " + known);
        }
    std::vector<ExportedBenchCase> cases;
    for (const std::string &name : kExportedNetworks) {
        if (!names.empty() && std::find(names.begin(), names.end(), name) == names.end()) continue;
        std::string path = models_dir + "/" + name + ".onnx";
        if (!std::filesystem::exists(path))
            throw CompileError(path + ": missing (tools/bench/export_torchvision.py writes it)");
        if (int8) {
            const std::string quantized = models_dir + "/" + name + (seven_bit_weights ? "-qdq7.onnx" : "-qdq.onnx");
            if (!std::filesystem::exists(quantized))
                output_of("python3 " + shell_quote(data_dir() + "/tools/onnxruntime_quantize.py") + " " +
                              (seven_bit_weights ? "--reduce-range " : "") + shell_quote(path) + " " +
                              shell_quote(quantized) + " 2>&1",
                          "quantizing " + name + " with onnxruntime (needs onnxruntime for the python3 on PATH)");
            path = quantized;
        }
        for (int64_t batch : batches.empty() ? std::vector<int64_t>{1, 5, 20} : batches)
            cases.push_back({path, int(batch), int8});
    }
    return cases;
}

void export_torchvision_networks(const std::string &dir) {
    const std::string script = data_dir() + "/tools/export_torchvision.py";
    output_of("/usr/bin/python3 " + shell_quote(script) + " " + shell_quote(dir) + " 1 2>&1",
              "exporting torchvision's networks (needs Debian's python3-torch and python3-torchvision; "
              "tools/bootstrap.sh installs them)");
}

BenchRow bench_exported_network(const ExportedBenchCase &c, const TargetDescription &target, int iterations,
                                const std::string &scratch, const ChoiceOverrides &records, bool fuse) {
    ImportOptions options;
    options.batch = c.batch;
    options.int8_from_model = c.int8;
    options.int8_weight_levels = int8_weight_levels(target.plan_target());
    options.int8_refusal = int8_refusal_for(target.plan_target());
    const Graph unfused = load_network(c.model, options, false);
    Graph graph = unfused;
    if (fuse) fuse_layers(graph);
    const BuiltNetwork built = build_network(graph, "net", target, scratch, cli_build_options_in_process(records));
    LoadedNetwork net(link_shared_library(built, scratch), "net");
    // The model's own weights, written as `cortado compile` writes them for NAME_create.
    const std::string weights_path = scratch + "/weights.caffemodel";
    write_caffemodel(weights_path, graph.name, *graph.weights);
    net.create(weights_path.c_str(), 1);

    const Shape &input_shape = graph.values[graph.inputs[0]].shape;
    std::vector<float> input(size_t(element_count(input_shape)));
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &v : input) v = uniform(random);
    std::vector<float> output(size_t(element_count(graph.values[graph.outputs[0]].shape)));
    net.forward(input.data(), output.data());

    BenchRow row;
    row.name = std::filesystem::path(c.model).stem().string() + " b" + std::to_string(c.batch);  // NAME-qdq in int8
    for (const Layer &layer : unfused.layers) row.gflop += layer_cost(unfused, layer).flops * 1e-9;
    row.ours = time_calls(iterations, [&] { net.forward(input.data(), output.data()); });

    // The peer runs after cortado's timing, in a process of its own; run first, it slowed
    // cortado's runs 2x.
    let_spinning_threads_settle();
    const std::string input_path = scratch + "/input.npy", peer_path = scratch + "/peer.npy";
    std::string error;
    if (!write_npy(input_path, input_shape, input.data(), &error)) throw CompileError(error);
    const std::string script = data_dir() + "/tools/onnxruntime_peer.py";
    std::istringstream peer_line(output_of("python3 " + shell_quote(script) + " " + shell_quote(c.model) + " " +
                                               shell_quote(input_path) + " " + shell_quote(peer_path) + " " +
                                               std::to_string(iterations),
                                           "the onnxruntime peer (needs onnxruntime for the python3 on PATH)"));
    std::string peer_name, version;
    Timing theirs;
    if (!(peer_line >> peer_name >> version >> theirs.median_ms >> theirs.min_ms >> theirs.max_ms))
        throw CompileError("the onnxruntime peer printed no timing");
    std::vector<int64_t> peer_shape;
    std::vector<float> peer_output;
    if (!read_npy(peer_path, &peer_shape, &peer_output, &error)) throw CompileError(error);

    row.peer = "onnxruntime " + version + " (CPU)";
    row.theirs = theirs;
    row.error = relative_l2_error(output, peer_output);
    return row;
}

}  // namespace cortado
