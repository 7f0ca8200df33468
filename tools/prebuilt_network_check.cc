// Checks a network library compiled elsewhere (for a GPU, on a machine without one) against the
// reference, on this machine: every blob, then the output of forwards more on fresh inputs
// without the blob callback (on CUDA, a captured graph and its replays), then the forward time and
// per-layer times. Needs no libHalide, so it travels to the lent GPU machine with the libraries
// (tools/bench/gpu-check.sh).
//
//   prebuilt_network_check NET.prototxt libnet.so HALIDE_TARGET [--batch N]
//                          [--input-shape N,C,H,W] [--seed S] [--iterations K] [--replays R]
//                          [--non-finite] [--write-model-weights W.caffemodel] [--knobs K] [--layouts nchw|blocked]
//                          [--qparams NET.qparams [--weight-levels L]] [--precision int8|fp16]
//                          [--no-fusion]
//
// --replays: forwards checked after the blob check, without the callback (default 2; 0: none);
// with --iterations 0 none run.
// --knobs and --layouts: the plan options the library was compiled with (PlanOptions::knobs and
// ::layouts), --qparams its int8 layers (--weight-levels the levels of their weights, by default
// the target's: compiler/int8_support.h), --precision int8 a quantized model's own int8 layers
// (QDQ, QLinear) and --precision fp16 its half-precision ones (docs/precision.md), so that the
// plan checked against is the library's; so does --no-fusion (every layer its own step).
// --write-model-weights: first writes an ONNX model's own weights (its initializers, as
// `cortado compile` writes them for NAME_create) to W, for a peer comparison on the device.
// --non-finite: instead, checks the output element by element on inputs holding NaN and
// infinities (check_non_finite; the cases in tests/non_finite/).
// --weights W.caffemodel: these trained weights instead of seeded ones (a Caffe model's; an ONNX
// model's own are --own-weights).
// --input X.npy --output Y.npy: first runs one forward on X (the network's input shape) and
// writes its output to Y: a cross target's predictions on real data (tests/digits_test.cc).
// --time-only: no blob check and no replays, only the timing: for a batch whose double-precision
// reference would take minutes, where the same network is checked at a smaller batch.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "compiler/int8_support.h"
#include "compiler/network_weights.h"
#include "compiler/qparams.h"
#include "compiler/reference/blob_check.h"
#include "compiler/target_features.h"
#include "compiler/temporary_directory.h"
#include "frontend/caffemodel_writer.h"
#include "frontend/compile_error.h"
#include "frontend/fusion.h"
#include "frontend/load_network.h"
#include "frontend/npy.h"
#include "frontend/untrained_fillers.h"
#include "tools/cli_args.h"

using namespace cortado;

int main(int argc, char **argv) {
    if (argc < 4) {
        std::fprintf(
            stderr,
            "usage: %s NET.prototxt libnet.so HALIDE_TARGET [--batch N] [--input-shape S] [--seed S] [--iterations K] "
            "[--replays R] [--non-finite] [--own-weights] [--time-only] [--write-model-weights W.caffemodel] [--knobs K] "
            "[--layouts nchw|blocked] [--qparams F [--weight-levels L]] [--precision int8|fp16] [--no-fusion] [--weights W] "
            "[--input X.npy --output Y.npy]\n",
            argv[0]);
        return 2;
    }
    try {
        const PlanTarget plan_target(argv[3]);
        ImportOptions options;
        // The levels `cortado compile --target` gave the library's int8 weights, unless told.
        options.int8_weight_levels = int8_weight_levels(plan_target);
        uint64_t seed = 1;
        int iterations = 20;
        int replays = 2;  // forwards checked without the callback (a CUDA graph's capture and replay)
        bool non_finite = false, own_weights = false;  // own: the model's initializers, not seeded weights
        bool time_only = false;
        bool int8_from_model = false;  // --precision int8
        bool fuse = true;              // --no-fusion: the library was compiled with it
        std::string model_weights, weights_file, input_npy, output_npy;
        PlanOptions plan_options;
        plan_options.knobs_source = "--knobs";
        for (int i = 4; i < argc; i++) {
            const std::string key = argv[i];
            if (key == "--non-finite" || key == "--own-weights" || key == "--time-only") {
                (key == "--non-finite" ? non_finite : key == "--own-weights" ? own_weights : time_only) = true;
                continue;
            }
            if (key == "--no-fusion") {
                fuse = false;
                continue;
            }
            if (i + 1 == argc) throw CompileError(key + " needs a value");
            const std::string value = argv[++i];
            if (key == "--batch") options.batch = std::stoll(value);
            else if (key == "--input-shape") options.input_shape = parse_shape(value);
            else if (key == "--seed") seed = std::stoull(value);
            else if (key == "--iterations") iterations = std::stoi(value);  // 0: check only
            else if (key == "--replays") replays = std::stoi(value);
            else if (key == "--write-model-weights") model_weights = value;
            else if (key == "--weights") weights_file = value;
            else if (key == "--input") input_npy = value;
            else if (key == "--output") output_npy = value;
            else if (key == "--knobs") plan_options.knobs = value;
            else if (key == "--layouts") plan_options.layouts = parse_activation_layouts(value, "--layouts");
            else if (key == "--qparams")
                options.int8_layers = int8_layers(read_qparams(value)), options.int8_source = value;
            else if (key == "--weight-levels") {
                options.int8_weight_levels = std::stoi(value);
                if (!ops::int8_weight_levels_valid(options.int8_weight_levels))
                    throw CompileError("--weight-levels " + value + ": give 1 to 127");
            } else if (key == "--precision" && value == "int8") {
                int8_from_model = true;
            } else if (key == "--precision" && value == "fp16") {
                // The layers `cortado compile` marked: those the target can run in fp16.
                options.fp16 = true;
                options.fp16_refusal = fp16_refusal_for(plan_target);
            } else throw CompileError("unknown option " + key);
        }
        if (int8_from_model && options.int8_layers.empty()) {
            // A quantized model (QDQ, QLinear) with its own scales: the layers `cortado compile
            // --precision int8` runs in int8 on this target (with --qparams, those it names).
            options.int8_from_model = true;
            options.int8_refusal = int8_refusal_for(plan_target);
        }
        Graph unfused = load_network(argv[1], options, false);
        if (!model_weights.empty()) {  // the unfused layers' weights, which the library reads by layer name
            if (!unfused.weights) throw CompileError(std::string(argv[1]) + ": carries no weights (not an ONNX model)");
            write_caffemodel(model_weights, unfused.name, *unfused.weights);
        }
        fill_untrained_weights(unfused);  // as the test harness did before compiling
        Graph fused = unfused;
        if (fuse) fuse_layers(fused);
        const NetworkPlan plan = plan_network(fused, "net", argv[3], plan_options);
        LoadedNetwork net(argv[2], "net");
        // A library compiled from another export of the model (one with a Pad layer more, say)
        // would be compared blob by blob against the wrong steps.
        if (net.layer_count() != int(plan.steps.size()))
            throw CompileError(std::string(argv[2]) + " runs " + std::to_string(net.layer_count()) + " steps; " +
                               argv[1] + " plans " + std::to_string(plan.steps.size()) +
                               ": compiled from another graph");
        for (int l = 0; l < net.layer_count(); l++)
            if (net.layer_name(l) != plan.steps[size_t(l)].layer)
                throw CompileError(std::string(argv[2]) + " step " + std::to_string(l) + " is '" + net.layer_name(l) +
                                   "', " + argv[1] + " plans '" + plan.steps[size_t(l)].layer +
                                   "': compiled from another graph");
        // The weights travel as a .caffemodel, so the check does not depend on how the library was
        // compiled (`cortado compile` keeps Caffe's zero fill where a deploy prototxt has no
        // fillers) and the weight-loading path is exercised on the device too.
        const TemporaryDirectory scratch("cortado-check");
        const std::string weights_path = scratch.path() + "/weights.caffemodel";
        if (own_weights && !unfused.weights) throw CompileError(std::string(argv[1]) + ": carries no weights");
        if (input_npy.empty() != output_npy.empty()) throw CompileError("--input and --output go together");
        const std::vector<LayerWeights> weights = !weights_file.empty() ? read_weights(unfused, weights_file)
                                                  : own_weights         ? *unfused.weights
                                                                        : seeded_weights(plan, seed);
        own_weights = own_weights || !weights_file.empty();  // trained: not held to seeded weights' checks
        write_caffemodel(weights_path, unfused.name, weights);
        net.create(weights_path.c_str(), seed);
        if (!input_npy.empty()) {
            std::vector<int64_t> shape;
            std::vector<float> input;
            std::string error;
            if (!read_npy(input_npy, &shape, &input, &error)) throw CompileError(error);
            if (shape != net.input_shape())
                throw CompileError(input_npy + ": its shape is not the network's input shape");
            const std::vector<int64_t> out_shape = net.output_shape();
            std::vector<float> output(static_cast<size_t>(element_count(out_shape)));
            net.forward(input.data(), output.data());
            if (!write_npy(output_npy, out_shape, output.data(), &error)) throw CompileError(error);
            std::printf("forward %s: %s -> %s\n", argv[1], input_npy.c_str(), output_npy.c_str());
        }

        if (non_finite) {
            const std::string differences = check_non_finite(unfused, plan, net, seed);
            std::printf("non-finite check %s %s: %s\n%s", argv[1], argv[3], differences.empty() ? "PASS" : "FAIL",
                        differences.c_str());
            return differences.empty() ? 0 : 1;
        }
        if (time_only) replays = 0;
        const BlobCheck check =
            time_only ? BlobCheck{} : check_every_blob(unfused, plan, net, seed, own_weights ? &weights : nullptr);
        // All-zero reference blobs would make the comparison vacuous: they fail the check too, but
        // for seeded weights only (a model's own weights may zero a blob, as a ReLU of negatives).
        const bool pass =
            time_only || (check.worst_error <= check.tolerance && (own_weights || check.all_zero_blobs == 0));
        if (time_only) std::printf("check %s %s: not run (--time-only)\n", argv[1], argv[3]);
        else
            std::printf("check %s %s: %d blobs (%d all zero), worst relative L2 error %.6g (%s), tolerance %.6g: %s\n",
                        argv[1], argv[3], check.blobs_checked, check.all_zero_blobs, check.worst_error,
                        check.worst_blob.c_str(), check.tolerance, pass ? "PASS" : "FAIL");

        if (iterations == 0) return pass ? 0 : 1;  // checking only (the cross-target test suites)
        // Forwards more on fresh inputs, without the callback: on CUDA the first is captured as
        // a graph and launched, the next replay it.
        const double replay_error = check_replays(unfused, plan, net, seed, replays, own_weights ? &weights : nullptr);
        // On CUDA the forwards must have replayed a graph, unless the run turned graphs off.
        const char *graphs = std::getenv("CORTADO_CUDA_GRAPHS");
        const bool graph_expected =
            replays > 0 && gpu_api(argv[3]) == "cuda" && !(graphs && std::string(graphs) == "0");
        const bool replays_pass =
            replay_error <= check.tolerance && (!graph_expected || net.launch_mode() == "one CUDA graph");
        if (replays > 0)
            std::printf(
                "replays %s %s: output of %d forwards without the callback (%s), worst relative L2 error %.6g: %s\n",
                argv[1], argv[3], replays, net.launch_mode().c_str(), replay_error, replays_pass ? "PASS" : "FAIL");
        std::vector<float> input(static_cast<size_t>(element_count(unfused.values[unfused.inputs[0]].shape)), 0.5f);
        std::vector<float> output(static_cast<size_t>(element_count(unfused.values[unfused.outputs[0]].shape)));
        std::vector<double> totals;
        for (int i = 0; i < iterations + 1; i++) {
            const auto start = std::chrono::steady_clock::now();
            net.forward(input.data(), output.data());
            if (i > 0)
                totals.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(totals.begin(), totals.end());
        net.set_profiling(true);
        std::vector<std::vector<double>> layers(net.layer_count());
        for (int i = 0; i < iterations; i++) {
            net.forward(input.data(), output.data());
            for (int l = 0; l < net.layer_count(); l++) layers[l].push_back(net.layer_time_ms(l));
        }
        double layer_sum = 0;
        for (int l = 0; l < net.layer_count(); l++) {
            std::sort(layers[l].begin(), layers[l].end());
            const double median = layers[l][layers[l].size() / 2];
            layer_sum += median;
            if (median > 0) std::printf("  %-48s %9.4f ms\n", net.layer_name(l).c_str(), median);
        }
        std::printf(
            "time %s: forward median %.3f ms (min %.3f, with input/output copies, %s), layers summed %.3f ms, %d "
            "iterations\n",
            argv[1], totals[totals.size() / 2], totals.front(), net.launch_mode().c_str(), layer_sum, iterations);
        return pass && replays_pass ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
