// `cortado bench conv|sgemm|nets`: cortado against the CPU peers (oneDNN, OpenBLAS) on the same
// data in the same process. Every cortado result is checked against the peer's output before either is
// timed; times are medians over --iterations runs after a warm-up.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "frontend/compile_error.h"
#include "frontend/import_caffe.h"
#include "frontend/shape_inference.h"
#include "tools/bench_networks.h"
#include "tools/bench_report.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/loaded_network.h"
#include "tools/network_builder.h"
#include "tools/network_weights.h"
#include "tools/peers.h"
#include "tools/temporary_directory.h"
#include "tools/toolchain.h"

namespace cortado {

namespace {

double relative_error(const std::vector<float> &a, const std::vector<float> &b) {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); i++) {
        diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return a.size() == b.size() && std::isfinite(diff) ? std::sqrt(diff / std::max(norm, 1e-30)) : INFINITY;
}

// A one-layer network compiled for `target`, run on seeded weights and random input.
struct SingleLayer {
    std::vector<float> input, output;
    std::vector<LayerWeights> weights;
    Timing timing;
};

SingleLayer run_single_layer(const std::string &prototxt, const TargetDescription &target, int iterations,
                             const std::string &scratch) {
    Graph graph = import_caffe_prototxt_text(prototxt, "bench.prototxt", ImportOptions{});
    infer_shapes(graph);
    const BuiltNetwork built = build_network(graph, "net", target, scratch, false);
    SingleLayer result;
    LoadedNetwork net(link_shared_library(built, scratch), "net");
    net.create(nullptr, 1);
    result.weights = seeded_weights(built.plan, 1);
    result.input.resize(size_t(element_count(graph.values[graph.inputs[0]].shape)));
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &v : result.input) v = uniform(random);
    result.output.resize(size_t(element_count(graph.values[graph.outputs[0]].shape)));
    net.forward(result.input.data(), result.output.data());
    net.set_profiling(true);
    std::vector<double> ms;
    for (int i = 0; i < iterations; i++) {
        net.forward(result.input.data(), result.output.data());
        ms.push_back(net.layer_time_ms(0));
    }
    std::sort(ms.begin(), ms.end());
    result.timing = {ms[ms.size() / 2], ms.front(), ms.back()};
    return result;
}

std::vector<ConvShape> conv_set(const std::string &csv, int64_t batch, bool quick) {
    std::ifstream file(csv);
    if (!file) throw CompileError(csv + ": cannot open the convolution set");
    std::vector<ConvShape> shapes;
    std::string line;
    std::getline(file, line);  // header
    while (std::getline(file, line)) {
        ConvShape s{};
        if (std::sscanf(line.c_str(), "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", &s.batch, &s.in_channels,
                        &s.in_h, &s.in_w, &s.out_channels, &s.kernel_h, &s.kernel_w, &s.stride_h,
                        &s.stride_w, &s.pad_h, &s.pad_w, &s.out_h, &s.out_w) != 13)
            throw CompileError(csv + ": malformed row '" + line + "'");
        if (batch == 0 || s.batch == batch) shapes.push_back(s);
    }
    // The Overfeat layers of the GTC 2015 talk, batch 1.
    if (batch == 0 || batch == 1) {
        shapes.push_back({1, 3, 221, 221, 96, 7, 7, 2, 2, 0, 0, 108, 108});
        shapes.push_back({1, 96, 36, 36, 256, 7, 7, 1, 1, 0, 0, 30, 30});
        for (auto [in, out] : {std::pair{256, 512}, {512, 512}, {512, 1024}, {1024, 1024}})
            shapes.push_back({1, in, 15, 15, out, 3, 3, 1, 1, 1, 1, 15, 15});
    }
    if (quick) {
        std::vector<ConvShape> few;
        for (size_t i = 0; i < shapes.size(); i += 16) few.push_back(shapes[i]);
        few.push_back(shapes.back());
        return few;
    }
    return shapes;
}

std::string conv_prototxt(const ConvShape &s) {
    std::ostringstream p;
    p << "input: \"data\"\ninput_shape { dim: " << s.batch << " dim: " << s.in_channels << " dim: " << s.in_h
      << " dim: " << s.in_w << " }\n"
      << "layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\" convolution_param {"
      << " num_output: " << s.out_channels << " kernel_h: " << s.kernel_h << " kernel_w: " << s.kernel_w
      << " stride_h: " << s.stride_h << " stride_w: " << s.stride_w << " pad_h: " << s.pad_h
      << " pad_w: " << s.pad_w
      << " weight_filler { type: \"gaussian\" std: 0.1 } bias_filler { type: \"uniform\" min: -1 max: 1 } } }\n";
    return p.str();
}

std::string conv_name(const ConvShape &s) {
    char text[128];
    std::snprintf(text, sizeof text, "b%d %d>%d %dx%d s%d p%d on %dx%d", s.batch, s.in_channels, s.out_channels,
                  s.kernel_h, s.kernel_w, s.stride_h, s.pad_h, s.in_h, s.in_w);
    return text;
}

}  // namespace

int command_bench(const std::vector<std::string> &args) {
    const CliArgs cli =
        parse_cli_args(args, {"batch", "iterations", "json", "markdown", "models", "set", "target"}, {"quick"});
    const std::string suite = cli.positional;
    const int iterations = int(cli.get_int("iterations", 10));
    const TargetDescription target = resolve_target(cli.get("target", "host"));
    require_runs_here(target.halide_target, "bench");
    if (iterations < 1) throw CompileError("--iterations must be at least 1");
    const TemporaryDirectory scratch_dir("cortado-bench");
    const std::string &scratch = scratch_dir.path();
    std::vector<BenchRow> rows;
    bool mismatch = false;
    auto check = [&](const BenchRow &row) {
        if (!(row.error <= 1e-4)) {
            std::cerr << "cortado bench: " << row.name << ": output differs from " << row.peer << " (relative L2 "
                      << row.error << "); not timed\n";
            mismatch = true;
            return;
        }
        std::cerr << "\r" << rows.size() + 1 << " " << row.name << "            " << std::flush;
        rows.push_back(row);
    };
    if (suite == "conv") {
        const std::string csv = cli.get("set", std::string(CORTADO_SOURCE_DIR) + "/../shared/bench/boda-convs.csv");
        for (const ConvShape &s : conv_set(csv, cli.get_int("batch", 0), cli.flags.count("quick"))) {
            SingleLayer ours = run_single_layer(conv_prototxt(s), target, iterations, scratch);
            std::vector<float> theirs;
            const PeerTiming peer = onednn_convolution(s, ours.input, ours.weights[0].blobs[0],
                                                       ours.weights[0].blobs[1], &theirs, iterations);
            const double gflop = 2e-9 * s.batch * s.out_channels * s.out_h * s.out_w * s.in_channels * s.kernel_h * s.kernel_w;
            const double megabytes = 4e-6 * (double(ours.input.size()) + ours.weights[0].blobs[0].size() +
                                             ours.weights[0].blobs[1].size() + ours.output.size());
            check({conv_name(s), gflop, megabytes, ours.timing, peer.implementation,
                   {peer.median_ms, peer.min_ms, peer.max_ms}, relative_error(ours.output, theirs)});
        }
    } else if (suite == "sgemm") {
        std::vector<int> sizes = {128, 256, 512, 1024, 2048};
        if (!cli.flags.count("quick")) sizes.push_back(4096);
        for (int n : sizes) {
            const std::string prototxt = "input: \"data\"\ninput_shape { dim: " + std::to_string(n) + " dim: " +
                                         std::to_string(n) +
                                         " }\nlayer { name: \"gemm\" type: \"InnerProduct\" bottom: \"data\" top: \"c\" "
                                         "inner_product_param { num_output: " + std::to_string(n) +
                                         " bias_term: false weight_filler { type: \"gaussian\" } } }\n";
            SingleLayer ours = run_single_layer(prototxt, target, iterations, scratch);
            std::vector<float> theirs;
            const PeerTiming peer = openblas_sgemm(n, n, n, ours.input, ours.weights[0].blobs[0], &theirs, iterations);
            check({"sgemm " + std::to_string(n), 2e-9 * n * double(n) * n, 4e-6 * 3 * double(n) * n, ours.timing,
                   peer.implementation, {peer.median_ms, peer.min_ms, peer.max_ms}, relative_error(ours.output, theirs)});
        }
    } else if (suite == "nets") {
        const std::string models = cli.get("models", std::string(CORTADO_SOURCE_DIR) + "/../shared/models");
        for (const NetworkBenchCase &c : shipped_network_cases(models, cli.flags.count("quick")))
            if (!cli.has("batch") || c.batch == cli.get_int("batch", 0)) check(bench_network(c, target, iterations, scratch));
    } else {
        throw CompileError("unknown bench suite '" + suite + "': give conv, sgemm or nets");
    }
    std::cerr << "\n";
    write_bench_reports(rows, suite, target, cli.get("markdown", ""), cli.get("json", ""));
    return mismatch ? 6 : 0;
}

}  // namespace cortado
