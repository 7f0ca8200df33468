// `cortado run`: compile for this machine, load the library exactly as a user would link it,
// run it on real or seeded data, time it, and optionally check it against the reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "compiler/json_text.h"
#include "compiler/loaded_network.h"
#include "compiler/network_builder.h"
#include "compiler/network_weights.h"
#include "compiler/reference/blob_check.h"
#include "compiler/temporary_directory.h"
#include "compiler/toolchain.h"
#include "compiler/tuning_db.h"
#include "frontend/caffemodel_writer.h"
#include "frontend/compile_error.h"
#include "frontend/layer_cost.h"
#include "frontend/load_network.h"
#include "frontend/npy.h"
#include "frontend/untrained_fillers.h"
#include "tools/cli_args.h"
#include "tools/cli_environment.h"
#include "tools/cli_precision.h"
#include "tools/cli_tuning.h"
#include "tools/commands.h"
#include "tools/machine_load.h"
#include "tools/run_statistics.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

struct DumpState {
    fs::path dir;
    std::string error;
};

// --check-finite: the first blob, in execution order, that holds a NaN or an infinity.
struct FiniteState {
    const LoadedNetwork *net;
    int call = 0;  // 0: the input; i + 1: layer i
    std::string first_bad;
};

void check_finite(void *user, const char *blob, int rank, const int64_t *shape, const float *data) {
    auto *state = static_cast<FiniteState *>(user);
    const int call = state->call++;
    if (!state->first_bad.empty()) return;
    int64_t count = 1, bad = 0, first = -1;
    for (int i = 0; i < rank; i++) count *= shape[i];
    for (int64_t i = 0; i < count; i++)
        if (!std::isfinite(data[i]) && bad++ == 0) first = i;
    if (bad == 0) return;
    const std::string where = call == 0 ? "the input '" + std::string(blob) + "'"
                                        : "layer '" + state->net->layer_name(call - 1) + "' (blob '" + blob + "')";
    state->first_bad = where + " is not finite: " + std::to_string(bad) + " of " + std::to_string(count) +
                       " values, the first at flat index " + std::to_string(first) + " (" +
                       std::to_string(data[first]) + ")";
}

std::string non_finite_weights(const std::vector<LayerWeights> &weights) {
    for (const LayerWeights &layer : weights)
        for (size_t b = 0; b < layer.blobs.size(); b++)
            for (size_t i = 0; i < layer.blobs[b].size(); i++)
                if (!std::isfinite(layer.blobs[b][i]))
                    return "weights of layer '" + layer.layer + "' blob " + std::to_string(b) +
                           " are not finite (first at flat index " + std::to_string(i) + ")";
    return "";
}

// Blob names may contain '/', as GoogLeNet's do: they become subdirectories.
void dump_blob(void *user, const char *blob, int rank, const int64_t *shape, const float *data) {
    auto *state = static_cast<DumpState *>(user);
    // ONNX exporters name tensors "/conv1/Conv_output_0": keep every file inside the folder.
    const fs::path name = fs::path(std::string(blob) + ".npy").relative_path();
    for (const auto &part : name)
        if (part == "..") {
            if (state->error.empty()) state->error = "blob '" + std::string(blob) + "' names a file outside --dump-dir";
            return;
        }
    const fs::path path = state->dir / name;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::string error;
    if (!write_npy(path.string(), std::vector<int64_t>(shape, shape + rank), data, &error) && state->error.empty())
        state->error = error;
}

}  // namespace

namespace {

// With fp16 layers the check above compares against the fp16 reference; this says how far half
// precision moved the output from the fp32 reference, which a model whose activations leave the
// half range (below 6e-8 or above 65504) shows as a large difference. Reported, not checked.
void report_half_precision_effect(const Graph &unfused, const reference::WeightMap &weights,
                                  const std::vector<float> &input, const std::vector<float> &output) {
    Graph fp32 = unfused;
    bool any = false;
    for (Layer &layer : fp32.layers)
        if (auto *p = std::get_if<ConvolutionParams>(&layer.params); p && p->fp16) p->fp16 = false, any = true;
    if (!any) return;
    const Shape &in_shape = fp32.values[size_t(fp32.inputs[0])].shape;
    const reference::Tensor in{in_shape, std::vector<double>(input.begin(), input.end())};
    const auto values = reference::run_graph(fp32, weights, {in});
    std::printf("fp16 against the fp32 reference: relative L2 %.3g (half precision's effect on the output)\n",
                reference::relative_l2_error(output.data(), values[size_t(fp32.outputs[0])]));
}

}  // namespace

int command_run(const std::vector<std::string> &args) {
    const CliArgs cli =
        parse_cli_args(args,
                       {"weights", "seed", "save-weights", "input", "output", "dump-dir", "input-shape", "batch",
                        "target", "iterations", "warmup", "json", "db", "precision", "qparams"},
                       {"check", "check-finite", "untuned", "no-transfer", "no-fusion"});
    if (cli.has("weights") && cli.has("seed")) throw CompileError("give --weights or --seed, not both");
    ImportOptions options;
    options.batch = cli.get_count("batch", 0);
    if (cli.has("input-shape")) options.input_shape = parse_shape(cli.get("input-shape"));
    const TargetDescription target = resolve_target(cli.get("target", "host"));
    apply_cli_precision(cli, options, target);
    const int64_t iterations = cli.get_count("iterations", 10);
    const int64_t asked_warmup = cli.get_count("warmup", 1, 0);
    const uint64_t seed = static_cast<uint64_t>(cli.get_int("seed", 1));

    Graph graph = load_network(cli.positional, options, !cli.flags.count("no-fusion"));
    if (!cli.has("weights") && !graph.weights)
        if (const std::string note = stand_in_weights_note(fill_untrained_weights(graph)); !note.empty())
            std::cerr << "cortado: note: " << note << "\n";
    require_runs_here(target.halide_target, "run");
    if (target.halide_target.rfind(resolve_target("host").halide_target, 0) != 0 && cli.get("target", "host") != "host")
        std::cerr << "cortado: note: running code for " << target.halide_target << " on this machine\n";

    TemporaryDirectory build_dir("cortado-run");
    const TuningChoices tuning = cli_tuning_choices(cli, target);
    const BuiltNetwork built =
        build_network(graph, "net", target, build_dir.path(), cli_build_options(tuning.records, true));
    report_tuning_notes(tuning, built.plan);
    LoadedNetwork net(link_shared_library(built, build_dir.path()), "net");

    std::vector<LayerWeights> weights;
    std::string weights_path = cli.get("weights");
    if (weights_path.empty() && graph.weights) {
        // An ONNX model's initializers, handed to the library as the caffemodel compile writes
        // (once: --save-weights names where); the checks below use them as they are.
        weights = *graph.weights;
        weights_path = cli.has("save-weights") ? cli.get("save-weights") : build_dir.path() + "/model.caffemodel";
        write_caffemodel(weights_path, graph.name, weights);
        std::cout << "weights: the model's initializers\n";
        if (cli.has("save-weights")) std::cout << "weights saved to " << weights_path << "\n";
    } else if (weights_path.empty()) {
        weights = seeded_weights(built.plan, seed);
        std::cout << "weights: from the prototxt's fillers (random stand-ins where it has none), seed " << seed << "\n";
        if (cli.has("save-weights")) {
            write_caffemodel(cli.get("save-weights"), graph.name, weights);
            std::cout << "weights saved to " << cli.get("save-weights") << "\n";
        }
    } else {
        if (cli.has("save-weights")) throw UsageError("--save-weights needs --seed weights, not --weights");
        std::cout << "weights: " << weights_path << "\n";
    }
    net.create(weights_path.empty() ? nullptr : weights_path.c_str(), seed);
    // The checks below compare against the unfused network and the weights themselves: its every
    // layer's (a BatchNorm folded into its convolution too), read from the file once.
    std::optional<Graph> unfused;
    if (cli.flags.count("check") || cli.flags.count("check-finite")) {
        unfused = load_network(cli.positional, options, false);
        if (!graph.weights && !weights_path.empty()) weights = read_weights(*unfused, weights_path);
    }

    const std::vector<int64_t> in_shape = net.input_shape(), out_shape = net.output_shape();
    int64_t in_count = 1, out_count = 1;
    for (int64_t d : in_shape) in_count *= d;
    for (int64_t d : out_shape) out_count *= d;
    std::vector<float> input(static_cast<size_t>(in_count));
    if (cli.has("input")) {
        std::vector<int64_t> shape;
        std::string error;
        if (!read_npy(cli.get("input"), &shape, &input, &error)) throw CompileError(error);
        if (shape != in_shape)
            throw CompileError(cli.get("input") + ": shape " + shape_to_string(shape) + " but the network takes " +
                               shape_to_string(in_shape));
    } else {
        std::mt19937_64 random(seed + 0x5eed);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        for (float &v : input) v = uniform(random);
        std::cout << "input: uniform(-1, 1), seed " << seed << ", shape " << shape_to_string(in_shape) << "\n";
    }

    std::vector<float> output(static_cast<size_t>(out_count), std::nanf(""));
    DumpState dump{cli.get("dump-dir"), ""};
    if (cli.has("dump-dir")) net.set_blob_callback(dump_blob, &dump);
    // The first run touches the arena and wakes the thread pool; --warmup 0 times it, unless
    // --dump-dir or --check-finite need a run first. Those untimed runs count as warm-up.
    int64_t untimed = 0;
    if (asked_warmup > 0 || cli.has("dump-dir")) {
        net.forward(input.data(), output.data());
        untimed++;
    }
    if (cli.has("dump-dir")) {
        net.set_blob_callback(nullptr, nullptr);
        if (!dump.error.empty()) throw CompileError(dump.error);
        std::cout << "blobs written to " << cli.get("dump-dir") << "\n";
    }
    int exit_code = 0;
    if (cli.flags.count("check-finite")) {
        const std::string bad_weights = non_finite_weights(weights);
        if (!bad_weights.empty()) std::cout << "check-finite: " << bad_weights << "\n";
        FiniteState finite{&net, 0, ""};
        net.set_blob_callback(check_finite, &finite);
        net.forward(input.data(), output.data());
        untimed++;
        net.set_blob_callback(nullptr, nullptr);
        std::cout << "check-finite: " << (finite.first_bad.empty() ? "every blob is finite" : finite.first_bad) << "\n";
        if (!finite.first_bad.empty()) exit_code = 5;
    }

    for (; untimed < asked_warmup; untimed++) net.forward(input.data(), output.data());
    const int64_t warmup = untimed;
    // Timed without profiling, which synchronises a GPU after every step; the per-layer table
    // comes from as many profiled runs afterwards (at most 10).
    std::vector<double> runs, layer_ms(net.layer_count(), 0.0);
    const CpuTimes before = sample_cpu_times();
    for (int64_t i = 0; i < iterations; i++) {
        const auto start = std::chrono::steady_clock::now();
        net.forward(input.data(), output.data());
        runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    const double others = other_busy_cores(before, sample_cpu_times());
    net.set_profiling(true);
    const int64_t profiled = std::min<int64_t>(iterations, 10);
    for (int64_t i = 0; i < profiled; i++) {
        net.forward(input.data(), output.data());
        for (int l = 0; l < net.layer_count(); l++) layer_ms[l] += net.layer_time_ms(l) / profiled;
    }
    net.set_profiling(false);
    const RunStatistics stats = run_statistics(runs, in_shape[0]);
    // A cold first run (no warm-up) is slow by design, not a sign of an unsteady machine.
    const std::string unstable =
        instability(warmup == 0 ? std::vector<double>(runs.begin() + 1, runs.end()) : runs, others);
    std::map<std::string, int64_t> flops;  // by the step's first layer
    for (const Layer &layer : graph.layers) flops[layer.name] = layer_cost(graph, layer).flops;
    double layer_total = 0;
    for (double ms : layer_ms) layer_total += ms;
    std::printf("%-32s %10s %7s %10s\n", "layer", "ms", "share", "GFLOP/s");
    nlohmann::ordered_json layers_json = nlohmann::ordered_json::array();
    for (int l = 0; l < net.layer_count(); l++) {
        if (layer_ms[l] <= 0) continue;
        const std::string name = net.layer_name(l);
        const auto found = flops.find(name.substr(0, name.find('+')));
        const double gflops = found != flops.end() ? found->second / (layer_ms[l] * 1e6) : 0;
        const std::string shown = name.size() > 32 ? name.substr(0, 29) + "..." : name;
        std::printf("%-32s %10.3f %6.1f%% %10.1f\n", shown.c_str(), layer_ms[l], 100 * layer_ms[l] / layer_total,
                    gflops);
        layers_json.push_back({{"layer", name}, {"ms", layer_ms[l]}, {"gflops", gflops}});
    }
    std::printf("target %s, batch %lld, %lld warm-up and %lld timed runs\n", target.halide_target.c_str(),
                static_cast<long long>(in_shape[0]), static_cast<long long>(warmup),
                static_cast<long long>(iterations));
    std::printf("time per run: median %.3f ms, mean %.3f, p90 %.3f, p99 %.3f, min %.3f, max %.3f; %.1f images/s\n",
                stats.median_ms, stats.mean_ms, stats.p90_ms, stats.p99_ms, stats.min_ms, stats.max_ms,
                stats.images_per_s);
    if (!unstable.empty()) std::printf("warning: unstable timing: %s\n", unstable.c_str());
    if (cli.has("json")) {
        const nlohmann::ordered_json record{{"network", graph.name},
                                            {"target", target.halide_target},
                                            {"batch", in_shape[0]},
                                            {"warmup", warmup},
                                            {"runs_ms", runs},
                                            {"median_ms", stats.median_ms},
                                            {"mean_ms", stats.mean_ms},
                                            {"p90_ms", stats.p90_ms},
                                            {"p99_ms", stats.p99_ms},
                                            {"min_ms", stats.min_ms},
                                            {"max_ms", stats.max_ms},
                                            {"images_per_s", stats.images_per_s},
                                            {"other_busy_cores", others},
                                            {"unstable", unstable},
                                            {"layers", layers_json}};
        std::ofstream file(cli.get("json"));
        file << json_text(record) << "\n";
        if (!file.flush()) throw CompileError(cli.get("json") + ": cannot write");
    }

    // Top-5 of the first image, for classifier-shaped outputs.
    const int64_t classes = out_count / out_shape[0];
    if (classes >= 5) {
        std::vector<int> order(static_cast<size_t>(classes));
        for (int i = 0; i < classes; i++) order[i] = i;
        std::partial_sort(order.begin(), order.begin() + 5, order.end(),
                          [&](int a, int b) { return output[a] > output[b]; });
        std::printf("top-5 of image 0:");
        for (int i = 0; i < 5; i++) std::printf("  #%d %.6f", order[i], output[order[i]]);
        std::printf("\n");
    }
    if (cli.has("output")) {
        std::string error;
        if (!write_npy(cli.get("output"), out_shape, output.data(), &error)) throw CompileError(error);
        std::cout << "output written to " << cli.get("output") << "\n";
    }

    if (cli.flags.count("check")) {
        const int64_t non_finite =
            std::count_if(output.begin(), output.end(), [](float v) { return !std::isfinite(v); });
        if (non_finite > 0) {
            // An error norm over NaN or infinity says nothing (so the reference is not run); the
            // exit code is --check-finite's.
            std::printf(
                "reference check: FAIL, %lld output values are NaN or infinite "
                "(--check-finite names the first blob that holds one)\n",
                static_cast<long long>(non_finite));
            exit_code = 5;
        } else {
            const auto values = reference_values(*unfused, built.plan, net, reference_weights(weights), input);
            const double error = reference::relative_l2_error(output.data(), values[unfused->outputs[0]]);
            const double limit = built.plan.tolerance();
            std::printf("reference check: relative L2 error %.3g (limit %.0e): %s\n", error, limit,
                        error <= limit ? "PASS" : "FAIL");
            // Every blob the network writes, not the output alone: a saturated softmax can hide
            // a wrong layer before it.
            const BlobCheck blobs = compare_blobs(*unfused, built.plan, net, input, values);
            if (blobs.first_failing_blob.empty())
                std::printf("reference check, every blob: %d blobs, worst %.3g (%s): PASS\n", blobs.blobs_checked,
                            blobs.worst_error, blobs.worst_blob.c_str());
            else
                std::printf("reference check, every blob: %d blobs, the first beyond the limit is '%s' (%.3g): FAIL\n",
                            blobs.blobs_checked, blobs.first_failing_blob.c_str(), blobs.first_failing_error);
            if ((!(error <= limit) || !blobs.first_failing_blob.empty()) && exit_code == 0) exit_code = 4;
            report_half_precision_effect(*unfused, reference_weights(weights), input, output);
        }
    }
    return exit_code;
}

}  // namespace cortado
