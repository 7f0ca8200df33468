// `cortado bench conv|sgemm`: cortado against the CPU peers (oneDNN, OpenBLAS) on the same data in
// the same process. Every cortado result is checked against the peer's output before either is
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
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/kernel_builder.h"
#include "tools/loaded_network.h"
#include "tools/network_builder.h"
#include "tools/network_weights.h"
#include "tools/peers.h"
#include "tools/temporary_directory.h"

namespace cortado {

namespace {

struct BenchRow {
    std::string name;
    double gflop;
    double ours_ms, peer_ms;
    std::string peer;
    double error;  // relative L2 error of cortado's output against the peer's
};

double relative_error(const std::vector<float> &a, const std::vector<float> &b) {
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size(); i++) {
        diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return a.size() == b.size() && std::isfinite(diff) ? std::sqrt(diff / std::max(norm, 1e-30)) : INFINITY;
}

// A one-layer network compiled for `target`, run on seeded weights and random input.
struct SingleLayer {
    std::vector<float> input, output;
    std::vector<LayerWeights> weights;
    double median_ms = 0;
};

SingleLayer run_single_layer(const std::string &prototxt, const std::string &target, int iterations,
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
    result.median_ms = ms[ms.size() / 2];
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

void write_reports(const std::vector<BenchRow> &rows, const std::string &suite, const std::string &target,
                   const CliArgs &cli) {
    double ours = 0, peer = 0;
    std::vector<double> ratios;
    for (const BenchRow &r : rows) {
        ours += r.ours_ms;
        peer += r.peer_ms;
        ratios.push_back(r.peer_ms / r.ours_ms);
    }
    std::sort(ratios.begin(), ratios.end());
    std::ostringstream md;
    md << "| " << suite << " | GFLOP | cortado ms | cortado GFLOP/s | peer | peer ms | peer GFLOP/s | speed-up over peer | rel. error vs peer |\n"
       << "|---|---:|---:|---:|---|---:|---:|---:|---:|\n";
    char line[512];
    for (const BenchRow &r : rows) {
        std::snprintf(line, sizeof line, "| %s | %.3f | %.3f | %.1f | %s | %.3f | %.1f | %.2f | %.1e |\n", r.name.c_str(),
                      r.gflop, r.ours_ms, r.gflop / r.ours_ms * 1e3, r.peer.c_str(), r.peer_ms, r.gflop / r.peer_ms * 1e3,
                      r.peer_ms / r.ours_ms, r.error);
        md << line;
    }
    std::snprintf(line, sizeof line,
                  "\n%zu cases on %s: cortado %.2f ms in total, peers %.2f ms (speed-up %.2f); median per-case speed-up %.2f (min %.2f, max %.2f)\n",
                  rows.size(), target.c_str(), ours, peer, peer / ours,
                  ratios.empty() ? 0 : ratios[ratios.size() / 2], ratios.empty() ? 0 : ratios.front(),
                  ratios.empty() ? 0 : ratios.back());
    md << line;
    std::cout << md.str();
    if (cli.has("markdown")) std::ofstream(cli.get("markdown")) << md.str();
    if (cli.has("json")) {
        std::ofstream json(cli.get("json"));
        json << "{\"suite\": \"" << suite << "\", \"target\": \"" << target << "\", \"rows\": [\n";
        for (size_t i = 0; i < rows.size(); i++)
            json << "  {\"name\": \"" << rows[i].name << "\", \"gflop\": " << rows[i].gflop << ", \"cortado_ms\": "
                 << rows[i].ours_ms << ", \"peer\": \"" << rows[i].peer << "\", \"peer_ms\": " << rows[i].peer_ms
                 << ", \"relative_error\": " << rows[i].error << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
        json << "]}\n";
    }
}

}  // namespace

int command_bench(const std::vector<std::string> &args) {
    const CliArgs cli = parse_cli_args(args, {"batch", "iterations", "json", "markdown", "set", "target"}, {"quick"});
    const std::string suite = cli.positional;
    const int iterations = int(cli.get_int("iterations", 10));
    const std::string target = resolve_target(cli.get("target", "host"));
    if (iterations < 1) throw CompileError("--iterations must be at least 1");
    const TemporaryDirectory scratch_dir("cortado-bench");
    const std::string &scratch = scratch_dir.path();
    std::vector<BenchRow> rows;
    bool mismatch = false;
    auto check = [&](BenchRow row) {
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
            check({conv_name(s), gflop, ours.median_ms, peer.median_ms, peer.implementation,
                   relative_error(ours.output, theirs)});
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
            check({"sgemm " + std::to_string(n), 2e-9 * n * double(n) * n, ours.median_ms, peer.median_ms,
                   peer.implementation, relative_error(ours.output, theirs)});
        }
    } else {
        throw CompileError("unknown bench suite '" + suite + "': give conv or sgemm");
    }
    std::cerr << "\n";
    write_reports(rows, suite, target, cli);
    return mismatch ? 6 : 0;
}

}  // namespace cortado
