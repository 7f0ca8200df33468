// int8 convolutions (ops/conv2d_int8.h): compiled for the test target and compared blob by blob
// with the reference interpreter's int8 semantics; the calibration's ranges and scales; the
// .qparams file and its errors; `cortado quantize` and `--qparams` end to end; the dot-product
// instructions each family's int8 kernels compile to. A family without an int8 variant must
// refuse it with the layer named.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/calibration.h"
#include "compiler/qparams.h"
#include "compiler/reference/reference_interpreter.h"
#include "compiler/temporary_directory.h"
#include "frontend/compile_error.h"
#include "frontend/import_caffe.h"
#include "frontend/int8_precision.h"
#include "frontend/load_network.h"
#include "frontend/npy.h"
#include "frontend/shape_inference.h"
#include "ops/conv2d_int8.h"
#include "schedules/families.h"
#include "tests/cli_process.h"
#include "tests/network_harness.h"

namespace cortado::testing {
namespace {

std::string conv_layer(const std::string &name, const std::string &bottom, const std::string &top, int outputs,
                       const std::string &extra) {
    return "layer { name: \"" + name + "\" type: \"Convolution\" bottom: \"" + bottom + "\" top: \"" + top +
           "\" convolution_param { num_output: " + std::to_string(outputs) +
           " weight_filler { type: \"gaussian\" std: 0.3 } bias_filler { type: \"uniform\" min: -1 max: 1 } " + extra +
           " } }\n";
}

std::string network(const Shape &input, const std::string &layers) {
    std::string text = "name: \"int8\"\ninput: \"data\"\ninput_shape {";
    for (int64_t d : input) text += " dim: " + std::to_string(d);
    return text + " }\n" + layers;
}

struct Int8Case {
    std::string what, layers;
    Shape input;
    std::map<std::string, Int8Input> int8;
};

std::vector<Int8Case> int8_cases() {
    return {
        {"3x3, pad 1, 6 channels (two words, the second half empty), 40 outputs (a short last panel), ReLU",
         conv_layer("c1", "data", "c1", 40, "kernel_size: 3 pad: 1") +
             "layer { name: \"r1\" type: \"ReLU\" bottom: \"c1\" top: \"c1\" }\n",
         {2, 6, 13, 11},
         {{"c1", {0.0079f, 128, ""}}}},
        {"5x5 stride 2 in 2 groups of 16 outputs after an int8 layer, rectangular map",
         conv_layer("c1", "data", "c1", 32, "kernel_size: 1") +
             "layer { name: \"r1\" type: \"ReLU\" bottom: \"c1\" top: \"c1\" }\n" +
             conv_layer("c2", "c1", "c2", 32, "kernel_size: 5 pad: 2 stride: 2 group: 2"),
         {1, 3, 17, 9},
         {{"c1", {0.0079f, 127, ""}}, {"c2", {0.012f, 0, ""}}}},
        {"dilation 2, no bias, one input channel, a zero point mid-range",
         conv_layer("c1", "data", "c1", 16, "kernel_size: 3 dilation: 2 pad: 2 bias_term: false"),
         {3, 1, 9, 12},
         {{"c1", {0.01f, 90, ""}}}},
        {"a residual sum fused into an int8 layer, then ReLU",
         conv_layer("c1", "data", "c1", 16, "kernel_size: 3 pad: 1") +
             conv_layer("c2", "c1", "c2", 16, "kernel_size: 3 pad: 1") +
             "layer { name: \"s\" type: \"Eltwise\" bottom: \"c2\" bottom: \"c1\" top: \"s\" }\n"
             "layer { name: \"r\" type: \"ReLU\" bottom: \"s\" top: \"s\" }\n",
         {2, 8, 7, 7},
         {{"c2", {0.02f, 128, ""}}}},
        {"an inception: two int8 layers written into their concatenation's slices (each image's slice a "
         "batch stride apart), read by an int8 layer",
         conv_layer("a", "data", "a", 16, "kernel_size: 1") + conv_layer("b", "data", "b", 8, "kernel_size: 3 pad: 1") +
             "layer { name: \"cat\" type: \"Concat\" bottom: \"a\" bottom: \"b\" top: \"cat\" }\n" +
             conv_layer("c", "cat", "c", 16, "kernel_size: 3 pad: 1"),
         {3, 12, 7, 7},
         {{"a", {0.0079f, 128, ""}}, {"b", {0.0079f, 128, ""}}, {"c", {0.02f, 100, ""}}}},
        {"an input range that clips (scale too small): values past it saturate at 0 and 255",
         conv_layer("c1", "data", "c1", 16, "kernel_size: 3"),
         {1, 4, 8, 8},
         {{"c1", {0.002f, 128, ""}}}},
    };
}

// Each case with 8-bit weights, then with 7-bit ones (ops::kInt8PairSumLevels), which x86
// targets without VNNI sum in pairs (cpu_int8_pair_sums) and the others as they sum 8 bits.
TEST(Int8, ConvolutionsMatchTheInt8Reference) {
    const uint64_t seed = test_seed();
    for (const Int8Case &c : int8_cases())
        for (const int levels : {ops::kInt8WeightLevels, ops::kInt8PairSumLevels}) {
            const std::string text = network(c.input, c.layers);
            SCOPED_TRACE(c.what + ", " + std::to_string(levels) + " weight levels, seed " + std::to_string(seed) +
                         " on " + test_target() + "\n" + text);
            ImportOptions options;
            options.int8_layers = c.int8;
            options.int8_source = "the test's layers";
            options.int8_weight_levels = levels;
            if (!int8_test_target()) {
                EXPECT_THROW(
                    {
                        try {
                            check_network_text(text, c.what, options, seed);
                        } catch (const CompileError &e) {
                            EXPECT_NE(std::string(e.what()).find("no variant for conv2d_int8"), std::string::npos)
                                << e.what();
                            EXPECT_NE(std::string(e.what()).find("layer '"), std::string::npos) << e.what();
                            throw;
                        }
                    },
                    CompileError);
                continue;
            }
            const BlobCheck check = check_network_text(text, c.what, options, seed);
            EXPECT_GT(check.blobs_checked, 1);
            EXPECT_LE(check.worst_error, check.tolerance) << "worst blob: " << check.worst_blob;
            // The check would see a kernel that skipped the quantization: the int8 and fp32
            // references differ by more than the tolerance.
            EXPECT_GT(
                precision_effect(
                    text, [&](Graph &g) { apply_int8_precision(g, options.int8_layers, options.int8_source, levels); },
                    seed, 0.3),
                check.tolerance);
        }
}

// A quantized model's own int8 weights take the pair sums' 7-bit levels only where every one of
// them is an integer in -64..64, so that the kernel multiplies the model's integers unclamped
// (onnxruntime's reduce_range writes such models); full-range ones keep their 8 bits.
TEST(Int8, ModelWeightsTakeSevenBitsOnlyWhereTheyFit) {
    for (const int largest : {64, 65, 127}) {
        SCOPED_TRACE("weights up to " + std::to_string(largest));
        Graph graph;
        graph.name = "quantized";
        graph.inputs = {graph.add_value("data", {1, 4, 5, 5})};
        Layer quantize{"xq", "Quantize", graph.inputs, {graph.add_value("xq", {1, 4, 5, 5})}, {}, {}, {}, {}};
        ActivationParams q;
        q.function = ops::ActivationFunction::Quantize, q.min = 0, q.max = 255, q.alpha = 0.02f, q.beta = 128;
        quantize.params = q;
        ConvolutionParams p;
        p.num_output = 2, p.kernel_h = p.kernel_w = 3;
        p.int8_weight_scales = {0.5f, 0.25f};
        const int out = graph.add_value("c", {1, 2, 3, 3});
        Layer conv{"c", "Convolution", quantize.outputs, {out}, p, {{2, 4, 3, 3}, {2}}, {}, {}};
        graph.outputs = {out};
        std::vector<float> blob(72);
        for (size_t i = 0; i < blob.size(); i++)
            blob[i] = float(int(i % 2 ? i % 60 : -(int(i) % 50))) * p.int8_weight_scales[i / 36];
        blob[40] = float(largest) * p.int8_weight_scales[1];
        graph.layers = {quantize, conv};
        graph.weights = std::make_shared<std::vector<LayerWeights>>(
            std::vector<LayerWeights>{{"c", {{2, 4, 3, 3}, {2}}, {blob, std::vector<float>(2, 0.0f)}}});
        apply_model_int8_precision(graph, "quantized.onnx", {}, ops::kInt8PairSumLevels);
        ASSERT_EQ(graph.layers.size(), 1u);  // the convolution quantizes its input itself
        const auto &marked = std::get<ConvolutionParams>(graph.layers[0].params);
        ASSERT_TRUE(marked.int8_input);
        EXPECT_EQ(marked.int8_input->weight_levels, largest <= 64 ? ops::kInt8PairSumLevels : ops::kInt8WeightLevels);
        // Without a target that sums pairs, 8 bits whatever the weights.
        graph.layers = {quantize, conv};
        apply_model_int8_precision(graph, "quantized.onnx", {}, ops::kInt8WeightLevels);
        EXPECT_EQ(std::get<ConvolutionParams>(graph.layers[0].params).int8_input->weight_levels,
                  ops::kInt8WeightLevels);
    }
}

TEST(Int8, CalibrationRangesAndScales) {
    std::vector<float> values(10000);
    for (size_t i = 0; i < values.size(); i++) values[i] = float(i) / float(values.size() - 1);  // [0, 1]
    values[17] = 1000.0f;                                                                        // one outlier
    ActivationRange range;
    range.observe_range(values.data(), int64_t(values.size()));
    EXPECT_EQ(range.min(), 0.0);
    EXPECT_EQ(range.max(), 1000.0);
    EXPECT_THROW(range.kept_range(CalibrationMethod::Percentile), CompileError);  // no histogram yet
    range.observe_values(values.data(), int64_t(values.size()));
    EXPECT_EQ(range.kept_range(CalibrationMethod::MinMax).second, 1000.0);
    // Both clip the outlier: the percentile to within a bin (1000 / 2048) of 1, entropy to the
    // narrowest threshold whose 255 levels still resolve the mass in [0, 1].
    const auto [lo, hi] = range.kept_range(CalibrationMethod::Percentile, 99.9);
    EXPECT_EQ(lo, 0.0);
    EXPECT_GT(hi, 0.5);
    EXPECT_LT(hi, 1.5);
    const double entropy = range.kept_range(CalibrationMethod::Entropy).second;
    EXPECT_GT(entropy, 1.0);
    EXPECT_LT(entropy, 200.0);

    EXPECT_FLOAT_EQ(quantization_of_range(0.0, 1e-40).scale, 1.0f);  // too narrow for a float scale
    EXPECT_EQ(ops::quantize_weight(std::nanf(""), 1.0f), 0);
    EXPECT_EQ(ops::quantize_weight(1e30f, ops::int8_weight_scale(1e-44f)), 127);
    const Int8Input unsigned_range = quantization_of_range(0.0, 2.55);
    EXPECT_FLOAT_EQ(unsigned_range.scale, 0.01f);
    EXPECT_EQ(unsigned_range.zero_point, 0);
    const Int8Input signed_range = quantization_of_range(-1.0, 3.0);
    EXPECT_FLOAT_EQ(signed_range.scale, 4.0f / 255.0f);
    EXPECT_EQ(signed_range.zero_point, 64);
    EXPECT_EQ(ops::quantize_activation(0.0f, signed_range.scale, signed_range.zero_point), 64);  // zero is exact
    EXPECT_EQ(ops::quantize_activation(-5.0f, signed_range.scale, signed_range.zero_point), 0);
    EXPECT_EQ(ops::quantize_activation(9.0f, signed_range.scale, signed_range.zero_point), 255);
    EXPECT_EQ(ops::quantize_weight(-1.0f, ops::int8_weight_scale(1.0f)), -127);
    EXPECT_EQ(ops::quantize_weight(0.5f, ops::int8_weight_scale(1.0f)), 64);  // 63.5 rounds to even
    // 7-bit weights (pair sums): the largest weight at 63; nothing past ±64 whatever the scale,
    // so that two products of 255 stay inside 16 bits.
    const int seven = ops::kInt8PairSumLevels;
    EXPECT_EQ(ops::quantize_weight(-1.0f, ops::int8_weight_scale(1.0f, seven), seven), -63);
    EXPECT_EQ(ops::quantize_weight(1e30f, ops::int8_weight_scale(1.0f, seven), seven), 64);
    EXPECT_EQ(ops::quantize_weight(-1e30f, ops::int8_weight_scale(1.0f, seven), seven), -64);
    EXPECT_EQ(ops::quantize_weight(1e30f, 1.0f), 127);
    EXPECT_THROW(parse_calibration_method("kl"), CompileError);
}

TEST(Int8, QparamsFilesAndTheirErrors) {
    const TemporaryDirectory dir("cortado-qparams");
    QuantizationParams q;
    q.network = "n", q.method = "percentile", q.images = 3;
    q.layers["conv1"] = {"data", -1.5, 2.5, {0.0157f, 96, ""}};
    q.fp32_layers["dw"] = "depthwise (one input channel per group)";
    const std::string path = dir.path() + "/n.qparams";
    write_qparams(q, path);
    const QuantizationParams back = read_qparams(path);
    EXPECT_EQ(back.method, "percentile");
    EXPECT_EQ(back.images, 3);
    ASSERT_EQ(back.layers.count("conv1"), 1u);
    EXPECT_FLOAT_EQ(back.layers.at("conv1").quantization.scale, 0.0157f);
    EXPECT_EQ(back.layers.at("conv1").quantization.zero_point, 96);
    EXPECT_EQ(back.fp32_layers.at("dw"), "depthwise (one input channel per group)");

    const auto expect_error = [&](const std::string &text, const std::string &says) {
        std::ofstream(path) << text;
        try {
            read_qparams(path);
            ADD_FAILURE() << "read: " << text;
        } catch (const CompileError &e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    };
    expect_error("{", "malformed");
    expect_error(R"({"format": "cortado-qparams", "version": 2, "layers": {}})", "version 1");
    expect_error(R"({"format": "cortado-qparams", "version": 1, "layers": {"c": {"input": "d", "min": 0, "max": 1,
                 "scale": 0.1, "zero_point": 300}}})",
                 "layer 'c'");
    expect_error(R"({"format": "cortado-qparams", "version": 1, "layers": {"c": {"input": "d", "min": 0}}})",
                 "layer 'c'");

    // The precision pass names what does not fit the network.
    const std::string text = network({1, 4, 8, 8}, conv_layer("c1", "data", "c1", 16, "kernel_size: 3") +
                                                       "layer { name: \"p\" type: \"Pooling\" bottom: \"c1\" top: "
                                                       "\"p\" pooling_param { pool: MAX kernel_size: 2 } }\n" +
                                                       conv_layer("dw", "p", "dw", 16, "kernel_size: 3 group: 16"));
    std::ofstream(dir.path() + "/net.prototxt") << text;
    const auto expect_refused = [&](const std::map<std::string, Int8Input> &layers, const std::string &says) {
        ImportOptions options;
        options.int8_layers = layers;
        options.int8_source = "F.qparams";
        try {
            load_network(dir.path() + "/net.prototxt", options, true);
            ADD_FAILURE() << "loaded with " << says;
        } catch (const CompileError &e) {
            EXPECT_NE(std::string(e.what()).find("F.qparams"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    };
    expect_refused({{"c9", {0.1f, 0, ""}}}, "layer 'c9' is not in network");
    expect_refused({{"p", {0.1f, 0, ""}}}, "layer 'p' is a Pooling");
    expect_refused({{"dw", {0.1f, 0, ""}}}, "depthwise");
    expect_refused({{"c1", {-0.1f, 0, ""}}}, "out of range");
    expect_refused({{"c1", {1e-39f, 0, ""}}}, "out of range");  // its reciprocal is infinite
    expect_refused({{"c1", {0.1f, 0, "conv0"}}}, "calibrated on blob 'conv0' but reads 'data'");
}

// x86 without VNNI plans 7-bit weights and the pair sums by default; a VNNI or ARM target keeps
// 8 bits and sums four products at once; the pair sums refuse 8-bit weights.
TEST(Int8, PairSumsWhereTheTargetLacksVnni) {
    const TemporaryDirectory dir("cortado-int8-pairs");
    const std::string net = dir.path() + "/net.prototxt", qparams = dir.path() + "/net.qparams";
    std::ofstream(net) << network({1, 16, 12, 12}, conv_layer("c1", "data", "c1", 64, "kernel_size: 3 pad: 1") +
                                                       conv_layer("c2", "c1", "c2", 32, "kernel_size: 3"));
    QuantizationParams q;
    q.network = "int8";
    q.layers["c1"] = {"data", -1, 1, {0.0079f, 128, ""}};
    q.layers["c2"] = {"c1", -4, 4, {0.032f, 128, ""}};
    write_qparams(q, qparams);
    for (const auto &[target, pairs] : std::vector<std::pair<std::string, bool>>{
             {"epyc-2core-avx2", true}, {"epyc-2core-avx512-zen4", false}, {"arm-64-linux-dotprod", false}}) {
        SCOPED_TRACE(target);
        const Result r = cortado("info " + net + " --plan --qparams " + qparams + " --target " + target);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        size_t count = 0;
        for (size_t at = r.output.find("cpu_int8_pair_sums"); at != std::string::npos;
             at = r.output.find("cpu_int8_pair_sums", at + 1))
            count++;
        EXPECT_EQ(count, pairs ? 2u : 0u) << r.output;
        EXPECT_EQ(r.output.find("7-bit weights") != std::string::npos, pairs) << r.output;
    }
    const auto *variant = schedules::families().at("cpu").op<ops::Conv2dInt8Shape>().find("cpu_int8_pair_sums");
    ASSERT_NE(variant, nullptr);
    ops::Conv2dInt8Shape shape;
    shape.conv.batch = 1, shape.conv.in_channels = 16, shape.conv.in_h = shape.conv.in_w = 12;
    shape.conv.out_channels = 64, shape.conv.out_h = shape.conv.out_w = 12;
    shape.conv.kernel_h = shape.conv.kernel_w = 3, shape.conv.pad_h = shape.conv.pad_w = 1;
    shape.weight_levels = ops::kInt8PairSumLevels;
    EXPECT_EQ(variant->unsupported(shape), "");
    shape.weight_levels = ops::kInt8WeightLevels;
    EXPECT_NE(variant->unsupported(shape).find("127 levels"), std::string::npos) << variant->unsupported(shape);
}

// The instruction that sums four byte products into each 32-bit lane, in the assembly of every
// int8 kernel (CORTADO_DEBUG_ASM; the DSP's for HVX): x86's vpdpbusd where the target has
// AVX512-VNNI and vpmaddubsw (two products into 16 bits) where it has only AVX2, ARM's sdot with
// the dot-product extension (signed activations), HVX's vrmpy, CUDA's dp4a.
TEST(Int8, KernelsUseTheirFamilysDotProductInstruction) {
    const TemporaryDirectory dir("cortado-int8-asm");
    const std::string net = dir.path() + "/net.prototxt", qparams = dir.path() + "/net.qparams";
    std::ofstream(net) << network({1, 16, 12, 12}, conv_layer("c1", "data", "c1", 64, "kernel_size: 3 pad: 1") +
                                                       "layer { name: \"r1\" type: \"ReLU\" bottom: \"c1\" top: "
                                                       "\"c1\" }\n" +
                                                       conv_layer("c2", "c1", "c2", 32, "kernel_size: 3"));
    QuantizationParams q;
    q.network = "int8";
    q.layers["c1"] = {"data", -1, 1, {0.0079f, 128, ""}};
    q.layers["c2"] = {"c1", 0, 4, {0.016f, 0, ""}};
    write_qparams(q, qparams);
    namespace fs = std::filesystem;
    for (const auto &[target, instruction, file_suffix] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"epyc-2core-avx512-zen4", "vpdpbusd", ".s"},
             {"epyc-2core-avx2", "vpmaddubsw", ".s"},  // pairs of products, then vpmaddwd
             {"arm-64-linux-dotprod", "sdot", ".s"},
             {"hexagon-hvx", "vrmpy", ".hexagon.s"},
             {"cuda-h100", "dp4a", ".s"}}) {  // the PTX is a string in the host's assembly
        SCOPED_TRACE(target);
        const std::string cache = dir.path() + "/cache-" + target;
        const Result r = cortado(
            "compile " + net + " --qparams " + qparams + " --target " + target + " -o " + dir.path() + "/out-" + target,
            "CORTADO_CACHE=" + cache + " CORTADO_DEBUG_ASM=1");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        int int8_kernels = 0;
        for (const fs::directory_entry &entry : fs::directory_iterator(cache)) {
            std::ifstream signature(entry.path() / "signature.txt");
            std::string key;
            std::getline(signature, key);
            if (key.rfind("conv2d_int8|", 0) != 0) continue;
            int8_kernels++;
            const std::string name = entry.path().filename().string();
            const fs::path assembly = entry.path() / (name.substr(0, name.rfind('-')) + file_suffix);
            std::ifstream file(assembly);
            ASSERT_TRUE(file) << assembly;
            const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            EXPECT_NE(text.find(instruction), std::string::npos) << "no " << instruction << " in " << assembly;
        }
        EXPECT_GE(int8_kernels, 2) << r.output;
    }
}

TEST(Int8, QuantizeThenRunThroughTheCli) {
    const TemporaryDirectory dir("cortado-quantize");
    const std::string net = dir.path() + "/net.prototxt", weights = dir.path() + "/net.caffemodel";
    std::ofstream(net) << network({1, 3, 12, 10},
                                  conv_layer("c1", "data", "c1", 32, "kernel_size: 3 pad: 1") +
                                      "layer { name: \"r1\" type: \"ReLU\" bottom: \"c1\" top: \"c1\" }\n" +
                                      conv_layer("dw", "c1", "dw", 32, "kernel_size: 3 group: 32") +
                                      conv_layer("c2", "dw", "c2", 16, "kernel_size: 1"));
    ASSERT_EQ(cortado("run " + net + " --iterations 1 --save-weights " + weights).exit_code, 0);
    // Calibration images from a run's input: 4 images of the network's shape.
    const std::string images = dir.path() + "/images.npy";
    {
        std::vector<float> data(4 * 3 * 12 * 10);
        std::mt19937 random(7);
        std::uniform_real_distribution<float> uniform(-2, 2);
        for (float &v : data) v = uniform(random);
        std::string error;
        ASSERT_TRUE(write_npy(images, {4, 3, 12, 10}, data.data(), &error)) << error;
    }
    const std::string qparams = dir.path() + "/net.qparams";
    const std::string target = " --target " + test_target();
    const Result q = cortado("quantize " + net + " --weights " + weights + " --calibrate " + images +
                             " --method percentile -o " + qparams);
    ASSERT_EQ(q.exit_code, 0) << q.output;
    EXPECT_NE(q.output.find("1 of 3 convolutions in int8"), std::string::npos) << q.output;
    EXPECT_NE(q.output.find("fp32: dw: depthwise"), std::string::npos) << q.output;
    EXPECT_NE(q.output.find("fp32: c2: 16 products per input value"), std::string::npos) << q.output;
    QuantizationParams read = read_qparams(qparams);
    ASSERT_EQ(read.layers.count("c1"), 1u);
    EXPECT_LT(read.layers.at("c1").min, 0.0);  // the images' values, roughly -2..2
    EXPECT_GT(read.layers.at("c1").max, 1.5);
    const Result every = cortado("quantize " + net + " --weights " + weights + " --calibrate " + images +
                                 " --every-layer -o " + qparams);
    ASSERT_EQ(every.exit_code, 0) << every.output;
    EXPECT_NE(every.output.find("2 of 3 convolutions in int8"), std::string::npos) << every.output;
    read = read_qparams(qparams);
    ASSERT_EQ(read.layers.count("c2"), 1u);
    EXPECT_EQ(read.layers.at("c2").input, "dw");
    // A target this machine cannot run is calibrated here, its int8 layers its own.
    const std::string cross = dir.path() + "/cross.qparams";
    const Result hvx = cortado("quantize " + net + " --weights " + weights + " --calibrate " + images +
                               " --target hexagon-hvx -o " + cross);
    ASSERT_EQ(hvx.exit_code, 0) << hvx.output;
    EXPECT_NE(hvx.output.find("calibrating on the host"), std::string::npos) << hvx.output;
    EXPECT_NE(hvx.output.find("1 of 3 convolutions in int8"), std::string::npos) << hvx.output;
    EXPECT_EQ(read_qparams(cross).layers.at("c1").quantization.scale,
              read_qparams(qparams).layers.at("c1").quantization.scale);
    // A network whose input comes from a data layer takes its shape from --input-shape.
    const std::string data_net = dir.path() + "/data.prototxt";
    std::ofstream(data_net) << "name: \"int8\"\nlayer { name: \"d\" type: \"Data\" top: \"data\" top: \"label\" }\n" +
                                   conv_layer("c1", "data", "c1", 32, "kernel_size: 3 pad: 1");
    const std::string data_weights = dir.path() + "/data.caffemodel";
    ASSERT_EQ(
        cortado("run " + data_net + " --input-shape 1,3,12,10 --iterations 1 --save-weights " + data_weights).exit_code,
        0);
    const Result no_shape =
        cortado("quantize " + data_net + " --weights " + data_weights + " --calibrate " + images + " -o " + cross);
    EXPECT_EQ(no_shape.exit_code, 1) << no_shape.output;
    EXPECT_NE(no_shape.output.find("--input-shape"), std::string::npos) << no_shape.output;
    const Result shaped = cortado("quantize " + data_net + " --input-shape 1,3,12,10 --weights " + data_weights +
                                  " --calibrate " + images + " -o " + cross);
    EXPECT_EQ(shaped.exit_code, 0) << shaped.output;
    EXPECT_EQ(read_qparams(cross).layers.count("c1"), 1u);

    const Result run =
        cortado("run " + net + " --weights " + weights + " --qparams " + qparams + target + " --iterations 1 --check");
    if (int8_test_target()) {
        EXPECT_EQ(run.exit_code, 0) << run.output;
        EXPECT_NE(run.output.find("every blob"), std::string::npos) << run.output;
        const Result plan = cortado("info " + net + " --plan --qparams " + qparams + target);
        EXPECT_EQ(plan.exit_code, 0) << plan.output;
        EXPECT_NE(plan.output.find("conv2d_int8"), std::string::npos) << plan.output;
    } else {
        EXPECT_EQ(run.exit_code, 1) << run.output;
        EXPECT_NE(run.output.find("layer 'c1'"), std::string::npos) << run.output;
    }

    // Bad requests: each a clear error, nothing run.
    const auto expect_failure = [&](const std::string &args, int code, const std::string &says) {
        const Result r = cortado(args);
        EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
        EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
    };
    expect_failure("run " + net + " --precision int8", 1, "calibrate it with `cortado quantize`");
    expect_failure("run " + net + " --precision fp16 --qparams " + qparams, 2, "--qparams goes with --precision int8");
    expect_failure("run " + net + " --precision fp32 --qparams " + qparams, 2, "goes with --precision int8");
    expect_failure("quantize " + net + " --calibrate " + images + " -o " + qparams, 2, "--weights");
    expect_failure("quantize " + net + " --weights " + weights + " --calibrate " + net + " -o " + qparams, 1,
                   "net.prototxt");
    expect_failure(
        "quantize " + net + " --weights " + weights + " --calibrate " + images + " --method kl -o " + qparams, 1,
        "unknown calibration method");
    expect_failure("quantize " + net + " --weights " + weights + " --calibrate " + images +
                       " --method percentile --percentile abc -o " + qparams,
                   2, "--percentile takes a number");
}

}  // namespace
}  // namespace cortado::testing
