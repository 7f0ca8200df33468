// `cortado quantize NET --calibrate IMAGES.npy -o NET.qparams`: post-training calibration for
// int8. It runs the fp32 network here, unfused, on the calibration images, observes the input of
// every convolution that can run in int8 on the target, and writes the range its method keeps and
// the scale and zero point that follow (compiler/calibration.h, compiler/qparams.h). Weights are
// quantized when the network is created (ops/conv2d_int8.h); they need no calibration.
#include <iostream>
#include <map>
#include <set>

#include "compiler/calibration.h"
#include "compiler/int8_support.h"
#include "compiler/kernel_plan.h"
#include "compiler/loaded_network.h"
#include "compiler/network_builder.h"
#include "compiler/network_weights.h"
#include "compiler/qparams.h"
#include "compiler/target_description.h"
#include "compiler/temporary_directory.h"
#include "compiler/toolchain.h"
#include "frontend/caffemodel_writer.h"
#include "frontend/compile_error.h"
#include "frontend/int8_precision.h"
#include "frontend/load_network.h"
#include "frontend/npy.h"
#include "tools/cli_args.h"
#include "tools/cli_environment.h"
#include "tools/commands.h"

namespace cortado {

namespace {

// The int8 kernel quantizes its input as it stages it, a pass over the input that only layers
// with enough products per input value pay back; the cut is the one that gave the convolution
// suite its best int8 total (docs/PERFORMANCE.md, "int8 convolutions on a VNNI CPU").
constexpr double kInt8LeastProductsPerInput = 64;

// Products each input value enters: the outputs of its group times the kernel's taps, over the
// stride's area.
double products_per_input(const ConvolutionParams &p) {
    return double(p.num_output / p.group) * p.kernel_h * p.kernel_w / (double(p.stride_h) * p.stride_w);
}

// Calibration state shared with the blob callback: which report of a forward is which graph
// value (the input, then each step's output), and the ranges of the values observed.
struct Observation {
    std::vector<int> value_of_report;
    std::map<int, ActivationRange> ranges;  // by graph value
    bool histogram = false;
    size_t report = 0;
};

void observe(void *user, const char *, int rank, const int64_t *shape, const float *data) {
    auto *o = static_cast<Observation *>(user);
    const size_t report = o->report++;
    if (report >= o->value_of_report.size()) return;
    const auto it = o->ranges.find(o->value_of_report[report]);
    if (it == o->ranges.end()) return;
    int64_t count = 1;
    for (int d = 0; d < rank; d++) count *= shape[d];
    if (o->histogram) it->second.observe_values(data, count);
    else it->second.observe_range(data, count);
}

}  // namespace

int command_quantize(const std::vector<std::string> &args) {
    const CliArgs cli = parse_cli_args(
        args, {"calibrate", "output-dir", "weights", "method", "percentile", "target", "input-shape"}, {"every-layer"});
    if (!cli.has("calibrate"))
        throw UsageError("quantize needs --calibrate IMAGES.npy (images in the network's input shape)");
    if (!cli.has("output-dir")) throw UsageError("quantize needs -o NET.qparams");
    const CalibrationMethod method = parse_calibration_method(cli.get("method", "minmax"));
    double percentile = 0;
    try {
        percentile = std::stod(cli.get("percentile", "99.99"));
    } catch (const std::exception &) {
        throw UsageError("--percentile takes a number, not '" + cli.get("percentile") + "'");
    }
    if (!(percentile > 50 && percentile <= 100)) throw UsageError("--percentile must lie in (50, 100]");

    std::vector<int64_t> images_shape;
    std::vector<float> images;
    std::string error;
    if (!read_npy(cli.get("calibrate"), &images_shape, &images, &error)) throw CompileError(error);
    ImportOptions options;
    if (cli.has("input-shape")) options.input_shape = parse_shape(cli.get("input-shape"));  // a data-layer net's
    options.batch = 1;
    Graph graph = load_network(cli.positional, options, false);
    const Shape &input = graph.values[size_t(graph.inputs[0])].shape;
    if (images_shape.size() != input.size() || images_shape.empty() || images_shape[0] < 1 ||
        !std::equal(input.begin() + 1, input.end(), images_shape.begin() + 1))
        throw CompileError(cli.get("calibrate") + ": shape " + shape_to_string(images_shape) +
                           "; the network takes images of " + shape_to_string(Shape(input.begin() + 1, input.end())) +
                           " (give N x that)");
    if (!graph.weights && !cli.has("weights"))
        throw UsageError(
            "quantize calibrates trained weights: give --weights W.caffemodel (an ONNX model carries its own)");
    // The int8 layers are the ones the target runs; the fp32 ranges are the same on any machine,
    // so a target that cannot run here (a GPU this machine lacks, ARM64, HVX) is calibrated on the
    // host.
    const TargetDescription target = resolve_target(cli.get("target", "host"));
    TargetDescription runner = target;
    if (const std::string why = why_cannot_run_here(target.halide_target); !why.empty()) {
        runner = resolve_target("host");
        std::cerr << "cortado: note: " << why << ": calibrating on the host, the int8 layers " << target.name << "'s\n";
    }

    QuantizationParams q;
    q.network = graph.name;
    q.method = calibration_method_name(method);
    q.images = int(images_shape[0]);
    Observation o;
    o.histogram = false;
    std::map<std::string, int> input_value;  // int8 layer -> the value it reads
    Graph trial = graph;
    trial.weights.reset();
    for (size_t index = 0; index < graph.layers.size(); index++) {
        const Layer &layer = graph.layers[index];
        if (!std::holds_alternative<ConvolutionParams>(layer.params)) continue;
        if (const std::string why = int8_refusal(trial, trial.layers[index], target.plan_target()); !why.empty()) {
            q.fp32_layers[layer.name] = why;
            continue;
        }
        const double products = products_per_input(std::get<ConvolutionParams>(layer.params));
        if (!cli.flags.count("every-layer") && products < kInt8LeastProductsPerInput) {
            q.fp32_layers[layer.name] = std::to_string(int(products)) +
                                        " products per input value: staging its input in int8 costs more than int8 "
                                        "saves (fewer than " +
                                        std::to_string(int(kInt8LeastProductsPerInput)) + "; --every-layer takes it)";
            continue;
        }
        input_value[layer.name] = layer.inputs[0];
        o.ranges[layer.inputs[0]];
    }
    if (input_value.empty()) throw CompileError(cli.positional + ": no convolution can run in int8 on " + target.name);

    TemporaryDirectory build_dir("cortado-quantize");
    const BuiltNetwork built = build_network(graph, "net", runner, build_dir.path(), cli_build_options({}, false));
    o.value_of_report.push_back(built.plan.tensors[size_t(built.plan.input_tensor)].value);
    for (const PlannedStep &step : built.plan.steps)
        o.value_of_report.push_back(built.plan.tensors[size_t(step.output_tensor)].value);
    LoadedNetwork net(link_shared_library(built, build_dir.path()), "net");
    std::string weights = cli.get("weights");
    if (graph.weights) {
        weights = build_dir.path() + "/model.caffemodel";
        write_caffemodel(weights, graph.name, *graph.weights);
    }
    net.create(weights.c_str(), 1);
    const size_t per_image = images.size() / size_t(images_shape[0]);
    std::vector<float> output(1);
    int64_t out_count = 1;
    for (int64_t d : net.output_shape()) out_count *= d;
    output.resize(size_t(out_count));
    net.set_blob_callback(observe, &o);
    for (int pass = 0; pass < (needs_histogram(method) ? 2 : 1); pass++) {
        o.histogram = pass == 1;
        for (int64_t i = 0; i < images_shape[0]; i++) {
            o.report = 0;
            net.forward(&images[size_t(i) * per_image], output.data());
            if (o.report != o.value_of_report.size())
                throw CompileError("quantize: the network reported " + std::to_string(o.report) + " blobs, " +
                                   std::to_string(o.value_of_report.size()) + " were planned");
        }
    }
    net.set_blob_callback(nullptr, nullptr);

    for (const auto &[layer, value] : input_value) {
        const ActivationRange &range = o.ranges.at(value);
        const auto [lo, hi] = range.kept_range(method, percentile);
        Int8LayerCalibration c;
        c.input = graph.values[size_t(value)].blob_name;
        c.min = lo, c.max = hi;
        c.quantization = quantization_of_range(lo, hi);
        q.layers[layer] = c;
    }
    write_qparams(q, cli.get("output-dir"));
    std::cout << "cortado: " << q.layers.size() << " of " << q.layers.size() + q.fp32_layers.size()
              << " convolutions in int8 (" << q.method << " over " << q.images << " images) -> "
              << cli.get("output-dir") << "\n";
    for (const auto &[layer, why] : q.fp32_layers) std::cout << "  fp32: " << layer << ": " << why << "\n";
    return 0;
}

}  // namespace cortado
