// `cortado bench conv|sgemm|nets|exported`: cortado against the CPU peers (oneDNN, OpenBLAS, and
// onnxruntime for the exported networks) on the same data, the CPU peers in the same process.
// Every cortado result is checked against the peer's output before either is
// timed; times are medians over --iterations runs after a warm-up. The sgemm suite runs the gemm
// op on its own, against OpenBLAS with the kernel set of this CPU's instruction set.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

#include "compiler/calibration.h"
#include "compiler/gemm_kernel.h"
#include "compiler/install_layout.h"
#include "compiler/int8_support.h"
#include "compiler/loaded_network.h"
#include "compiler/network_builder.h"
#include "compiler/network_weights.h"
#include "compiler/temporary_directory.h"
#include "compiler/toolchain.h"
#include "compiler/tuning_db.h"
#include "frontend/compile_error.h"
#include "frontend/import_caffe.h"
#include "frontend/int8_precision.h"
#include "frontend/shape_inference.h"
#include "ops/conv2d_int8.h"
#include "tools/bench/bench_cases.h"
#include "tools/bench/bench_exported.h"
#include "tools/bench/bench_gpu_prepare.h"
#include "tools/bench/bench_networks.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/peers.h"
#include "tools/cli_args.h"
#include "tools/cli_environment.h"
#include "tools/cli_tuning.h"
#include "tools/commands.h"
#include "tools/machine_load.h"

namespace cortado {

namespace {

// The input of a one-layer case: uniform(-1, 1), seeded, the same for every run and peer.
std::vector<float> bench_input(const Graph &graph) {
    std::vector<float> input(size_t(element_count(graph.values[graph.inputs[0]].shape)));
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &v : input) v = uniform(random);
    return input;
}

// A one-layer network compiled for `target`, run on seeded weights and random input.
struct SingleLayer {
    std::vector<float> input, output;
    std::vector<LayerWeights> weights;
    Timing timing;
    bool has_untuned = false;
    Timing untuned;
};

SingleLayer run_single_layer(const std::string &prototxt, const TargetDescription &target, int iterations,
                             const std::string &scratch, const ChoiceOverrides &records) {
    Graph graph = import_caffe_prototxt_text(prototxt, "bench.prototxt", ImportOptions{});
    infer_shapes(graph);
    const BuiltNetwork built = build_network(graph, "net", target, scratch, cli_build_options_in_process(records));
    SingleLayer result;
    LoadedNetwork net(link_shared_library(built, scratch), "net");
    net.create(nullptr, 1);
    result.weights = seeded_weights(built.plan, 1);
    result.input = bench_input(graph);
    result.output.resize(size_t(element_count(graph.values[graph.outputs[0]].shape)));
    net.forward(result.input.data(), result.output.data());
    // Where tuning records changed the kernel, the untuned one is timed too, alternating.
    std::unique_ptr<LoadedNetwork> untuned;
    std::vector<float> untuned_output(result.output.size());
    if (uses_tuning_records(built.plan)) {
        const std::string dir = scratch + "/untuned";
        const BuiltNetwork plain = build_network(graph, "net", target, dir, cli_build_options_in_process());
        untuned = std::make_unique<LoadedNetwork>(link_shared_library(plain, dir), "net");
        untuned->create(nullptr, 1);
        untuned->forward(result.input.data(), untuned_output.data());
        untuned->set_profiling(true);
    }
    net.set_profiling(true);
    const auto layer_ms = [&] {
        net.forward(result.input.data(), result.output.data());
        return net.layer_time_ms(0);
    };
    if (untuned) {
        const AlternatingTimings both = time_alternating(iterations, layer_ms, [&] {
            untuned->forward(result.input.data(), untuned_output.data());
            return untuned->layer_time_ms(0);
        });
        result.timing = both.first;
        result.has_untuned = true;
        result.untuned = both.second;
        return result;
    }
    let_spinning_threads_settle();
    layer_ms();
    std::vector<double> ms;
    for (int i = 0; i < iterations; i++) ms.push_back(layer_ms());
    result.timing = timing_of(std::move(ms));
    return result;
}

// A one-layer convolution in int8 against the same layer in fp32, both cortado's, timed
// alternately: its input quantized over the input's own range (ops/conv2d_int8.h), the fp32
// layer's variant the default rules' or the records'.
BenchRow bench_int8_convolution(const ConvShape &s, const TargetDescription &target, int iterations,
                                const std::string &scratch, const ChoiceOverrides &records) {
    Graph fp32 = import_caffe_prototxt_text(conv_prototxt(s), "bench.prototxt", ImportOptions{});
    infer_shapes(fp32);
    const std::vector<float> input = bench_input(fp32);
    const auto [lo, hi] = std::minmax_element(input.begin(), input.end());
    Graph int8 = fp32;
    std::map<std::string, Int8Input> layers;
    for (const Layer &layer : fp32.layers)
        if (std::holds_alternative<ConvolutionParams>(layer.params))
            layers[layer.name] = quantization_of_range(std::min(0.0, double(*lo)), std::max(0.0, double(*hi)));
    apply_int8_precision(int8, layers, "bench", int8_weight_levels(target.plan_target()));
    const auto load = [&](const Graph &graph, const std::string &dir) {
        const BuiltNetwork built = build_network(graph, "net", target, dir, cli_build_options_in_process(records));
        auto net = std::make_unique<LoadedNetwork>(link_shared_library(built, dir), "net");
        net->create(nullptr, 1);
        net->set_profiling(true);
        return std::make_pair(std::move(net), built.plan.kernels.at(0).choice.variant);
    };
    auto ours = load(int8, scratch + "/int8").first;
    auto [theirs, fp32_variant] = load(fp32, scratch + "/fp32");
    std::vector<float> out_int8(size_t(element_count(fp32.values[fp32.outputs[0]].shape))), out_fp32(out_int8.size());
    ours->forward(input.data(), out_int8.data());
    theirs->forward(input.data(), out_fp32.data());
    let_spinning_threads_settle();
    const AlternatingTimings both = time_alternating(
        iterations,
        [&, &net = ours] {
            net->forward(input.data(), out_int8.data());
            return net->layer_time_ms(0);
        },
        [&, &net = theirs] {
            net->forward(input.data(), out_fp32.data());
            return net->layer_time_ms(0);
        });
    BenchRow row;
    row.name = conv_name(s) + " int8";
    row.gflop = conv_gflop(s), row.megabytes = conv_megabytes(s);
    row.ours = both.first;
    row.peer = "cortado fp32 " + fp32_variant;
    row.theirs = both.second;
    row.error = relative_l2_error(out_int8, out_fp32);
    return row;
}

// C = A·B through the gemm op itself, on random A and B (seeded).
struct GemmRun {
    std::vector<float> a, b, c;
    Timing timing;
};

GemmRun run_gemm(int n, const TargetDescription &target, int iterations, const std::string &scratch) {
    GemmRun result;
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    result.a.resize(size_t(n) * n);
    result.b.resize(size_t(n) * n);
    result.c.resize(size_t(n) * n);
    for (float &v : result.a) v = uniform(random);
    for (float &v : result.b) v = uniform(random);
    const GemmKernel gemm(ops::GemmShape{n, n, n, false, false}, ops::Epilogue{}, target, scratch, cli_plan_options());
    const std::vector<float> no_bias(size_t(n), 0.0f);
    gemm.run(result.a.data(), result.b.data(), no_bias.data(), result.c.data());  // warm-up
    let_spinning_threads_settle();
    const auto run = [&] { gemm.run(result.a.data(), result.b.data(), no_bias.data(), result.c.data()); };
    run();
    result.timing = time_calls(iterations, run);
    return result;
}

}  // namespace

int command_bench(const std::vector<std::string> &args) {
    const CliArgs cli = parse_cli_args(
        args,
        {"batch", "iterations", "json", "markdown", "models", "prepare", "set", "target", "db", "net", "precision"},
        {"quick", "untuned", "no-transfer", "no-fusion"});
    const bool fuse = !cli.flags.count("no-fusion");
    const std::string precision = cli.get("precision", "fp32");
    if (precision != "fp32" && precision != "int8" && precision != "fp16")
        throw UsageError("--precision " + precision + ": give fp32, fp16 or int8");
    const bool int8 = precision == "int8";
    if (precision == "fp16" && (cli.positional != "nets" || !cli.has("prepare")))
        throw UsageError("bench: --precision fp16 goes with nets --prepare (the GPU benchmark against eager fp16)");
    if (int8 && cli.positional != "conv" && cli.positional != "exported")
        throw UsageError("bench: --precision int8 goes with conv and exported");
    if (!fuse && cli.positional != "nets" && cli.positional != "exported")
        throw UsageError("bench: --no-fusion goes with nets and exported");
    const std::string suite = cli.positional;
    const int iterations = int(cli.get_count("iterations", 10));
    const TargetDescription target = resolve_target(cli.get("target", "host"));
    // Only the suite that runs needs its files.
    const std::string csv = suite != "conv"  ? ""
                            : cli.has("set") ? cli.get("set")
                                             : shared_file("bench/boda-convs.csv", "--set CSV");
    const std::string models = suite == "exported" ? cli.get("models", "")
                               : suite != "nets"   ? ""
                               : cli.has("models") ? cli.get("models")
                                                   : shared_file("models", "--models DIR");
    const TuningChoices tuning = cli_tuning_choices(cli, target);
    for (const std::string &warning : tuning.warnings) std::cerr << "cortado: warning: " << warning << "\n";
    std::vector<int64_t> batches;
    if (cli.has("batch"))
        for (int64_t b : parse_shape(cli.get("batch"))) batches.push_back(b);
    std::vector<std::string> names;
    std::stringstream list(cli.get("net"));
    for (std::string name; std::getline(list, name, ',');) names.push_back(name);
    if (cli.has("prepare")) {
        prepare_gpu_bench(suite, csv, models, batches, names, cli.flags.count("quick"), !cli.has("set"), target,
                          cli.get("prepare"), tuning.records, precision == "fp16", fuse);
        return 0;
    }
    require_runs_here(target.halide_target, "bench");
    if (const std::string why = peers_unavailable_reason(); !why.empty()) throw CompileError("bench: " + why);
    if (iterations < 1) throw CompileError("--iterations must be at least 1");
    const TemporaryDirectory scratch_dir("cortado-bench");
    const std::string &scratch = scratch_dir.path();
    std::vector<BenchRow> rows;
    bool mismatch = false;
    // int8 against fp32 differs by the quantization (about 1e-2 relative L2 on these layers), and an
    // exported int8 model against onnxruntime's run of it by the values either side rounds to the
    // other step; a wrong kernel differs by about 1. The exact checks are tests/int8_test.cc's and
    // tests/onnx_test.cc's.
    const double agreement = int8 ? 5e-2 : 1e-4;
    auto check = [&](const BenchRow &row) {
        if (!(row.error <= agreement)) {
            std::cerr << "cortado bench: " << row.name << ": output differs from " << row.peer << " (relative L2 "
                      << row.error << "); not timed\n";
            mismatch = true;
            return;
        }
        std::cerr << "\r" << rows.size() + 1 << " " << row.name << "            " << std::flush;
        rows.push_back(row);
    };
    // A case whose runs spread too far, or that ran while other processes kept the cores busy, is
    // measured again, up to three times in all; if it stays unstable, its row says why.
    auto steady = [&](const std::function<BenchRow()> &measure) {
        BenchRow row;
        for (int attempt = 0; attempt < 3; attempt++) {
            const CpuTimes before = sample_cpu_times();
            row = measure();
            const double others = other_busy_cores(before, sample_cpu_times());
            const std::string ours = instability({row.ours.min_ms, row.ours.median_ms, row.ours.max_ms}, others);
            const std::string peer = instability({row.theirs.min_ms, row.theirs.median_ms, row.theirs.max_ms}, 0);
            row.unstable = ours.empty() && peer.empty() ? "" : !ours.empty() ? ours : "peer: " + peer;
            if (row.unstable.empty()) break;
        }
        return row;
    };
    if (suite == "conv") {
        for (const ConvShape &s : conv_set(csv, cli.get_count("batch", 0), cli.flags.count("quick"), !cli.has("set"))) {
            if (int8) {
                check(steady([&] { return bench_int8_convolution(s, target, iterations, scratch, tuning.records); }));
                continue;
            }
            check(steady([&] {
                SingleLayer ours = run_single_layer(conv_prototxt(s), target, iterations, scratch, tuning.records);
                std::vector<float> theirs;
                const PeerTiming peer = onednn_convolution(s, ours.input, ours.weights[0].blobs[0],
                                                           ours.weights[0].blobs[1], &theirs, iterations);
                BenchRow row{conv_name(s),
                             conv_gflop(s),
                             conv_megabytes(s),
                             ours.timing,
                             peer.implementation,
                             {peer.median_ms, peer.min_ms, peer.max_ms},
                             relative_l2_error(ours.output, theirs),
                             ours.has_untuned,
                             ours.untuned};
                return row;
            }));
        }
    } else if (suite == "sgemm") {
        for (int n : sgemm_sizes(cli.flags.count("quick"))) {
            check(steady([&] {
                const GemmRun ours = run_gemm(n, target, iterations, scratch);
                std::vector<float> theirs;
                const PeerTiming peer = openblas_sgemm(n, n, n, ours.a, ours.b, &theirs, iterations);
                return BenchRow{"sgemm " + std::to_string(n),
                                sgemm_gflop(n),
                                sgemm_megabytes(n),
                                ours.timing,
                                peer.implementation,
                                {peer.median_ms, peer.min_ms, peer.max_ms},
                                relative_l2_error(ours.c, theirs),
                                false,
                                {}};
            }));
        }
    } else if (suite == "nets" || suite == "exported") {
        if (suite == "nets") {
            for (const NetworkBenchCase &c : shipped_network_cases(models, cli.flags.count("quick"), batches, names))
                check(steady([&] { return bench_network(c, target, iterations, scratch, tuning.records, fuse); }));
        } else {
            std::string exported = models;
            if (exported.empty()) {
                exported = scratch + "/exported";
                export_torchvision_networks(exported);
            }
            const bool seven_bit = int8_weight_levels(target.plan_target()) < ops::kInt8WeightLevels;
            for (const ExportedBenchCase &c : exported_network_cases(exported, batches, names, int8, seven_bit))
                check(steady(
                    [&] { return bench_exported_network(c, target, iterations, scratch, tuning.records, fuse); }));
        }
    } else {
        throw CompileError("unknown bench suite '" + suite + "': give conv, sgemm, nets or exported");
    }
    std::cerr << "\n";
    write_bench_reports(rows, suite, target, cli.get("markdown", ""), cli.get("json", ""));
    return mismatch ? 6 : 0;
}

}  // namespace cortado
