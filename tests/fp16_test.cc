// Half-precision convolutions (ops/conv2d_fp16.h): compiled for the test target and compared blob
// by blob with the reference interpreter's fp16 semantics (operands rounded to half, products
// summed in double); the rounding to half itself; `--precision fp16` through the CLI and its
// errors; the half-precision instructions the kernels compile to. A target without half
// arithmetic (HVX, OpenCL without cl_half) must refuse, naming the layer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/reference/reference_interpreter.h"
#include "compiler/target_description.h"
#include "compiler/temporary_directory.h"
#include "frontend/compile_error.h"
#include "frontend/fp16_precision.h"
#include "frontend/import_caffe.h"
#include "frontend/shape_inference.h"
#include "ops/conv2d_fp16.h"
#include "tests/cli_process.h"
#include "tests/network_harness.h"

namespace cortado::testing {
namespace {

std::string conv_layer(const std::string &name, const std::string &bottom, const std::string &top, int outputs,
                       const std::string &extra) {
    return "layer { name: \"" + name + "\" type: \"Convolution\" bottom: \"" + bottom + "\" top: \"" + top +
           "\" convolution_param { num_output: " + std::to_string(outputs) +
           " weight_filler { type: \"gaussian\" std: 0.1 } bias_filler { type: \"uniform\" min: -1 max: 1 } " + extra +
           " } }\n";
}

std::string network(const Shape &input, const std::string &layers) {
    std::string text = "name: \"fp16\"\ninput: \"data\"\ninput_shape {";
    for (int64_t d : input) text += " dim: " + std::to_string(d);
    return text + " }\n" + layers;
}

struct Fp16Case {
    std::string what, layers;
    Shape input;
};

std::vector<Fp16Case> fp16_cases() {
    return {
        {"3x3, pad 1, 40 outputs (a short last panel), ReLU",
         conv_layer("c1", "data", "c1", 40, "kernel_size: 3 pad: 1") +
             "layer { name: \"r1\" type: \"ReLU\" bottom: \"c1\" top: \"c1\" }\n",
         {2, 6, 13, 11}},
        {"1x1 over 256 channels (several half sums per output), then 5x5 stride 2 in 2 groups",
         conv_layer("c1", "data", "c1", 32, "kernel_size: 1") +
             "layer { name: \"r1\" type: \"ReLU\" bottom: \"c1\" top: \"c1\" }\n" +
             conv_layer("c2", "c1", "c2", 32, "kernel_size: 5 pad: 2 stride: 2 group: 2"),
         {1, 256, 9, 9}},
        {"11x11 stride 4 on 3 channels, no bias",
         conv_layer("c1", "data", "c1", 16, "kernel_size: 11 stride: 4 bias_term: false"),
         {2, 3, 31, 27}},
        {"dilation 2, one input channel",
         conv_layer("c1", "data", "c1", 16, "kernel_size: 3 dilation: 2 pad: 2"),
         {3, 1, 9, 12}},
        {"a residual sum fused into an fp16 layer, then ReLU",
         conv_layer("c1", "data", "c1", 16, "kernel_size: 3 pad: 1") +
             conv_layer("c2", "c1", "c2", 16, "kernel_size: 3 pad: 1") +
             "layer { name: \"s\" type: \"Eltwise\" bottom: \"c2\" bottom: \"c1\" top: \"s\" }\n"
             "layer { name: \"r\" type: \"ReLU\" bottom: \"s\" top: \"s\" }\n",
         {2, 8, 7, 7}},
        {"an inception: two fp16 layers written into their concatenation's slices, read by an fp16 layer; a "
         "depthwise layer stays fp32",
         conv_layer("a", "data", "a", 16, "kernel_size: 1") + conv_layer("b", "data", "b", 8, "kernel_size: 3 pad: 1") +
             "layer { name: \"cat\" type: \"Concat\" bottom: \"a\" bottom: \"b\" top: \"cat\" }\n" +
             conv_layer("dw", "cat", "dw", 24, "kernel_size: 3 pad: 1 group: 24") +
             conv_layer("c", "dw", "c", 16, "kernel_size: 3 pad: 1"),
         {3, 12, 7, 7}},
    };
}

// Targets without half arithmetic or half loads must refuse fp16: HVX, and OpenCL without the
// cl_half feature (PoCL lacks cl_khr_fp16).
bool fp16_refused_on_test_target() {
    const std::string target = resolve_target(test_target()).halide_target;
    return target.find("hvx") != std::string::npos ||
           (target.find("opencl") != std::string::npos && target.find("cl_half") == std::string::npos);
}

// Whether the test target sums the half products in fp32 (the CPU variant without arm_fp16).
bool sums_in_fp32_on_test_target() {
    const std::string target = resolve_target(test_target()).halide_target;
    return target.find("arm_fp16") == std::string::npos && target.find("cuda") == std::string::npos &&
           target.find("opencl") == std::string::npos;
}

TEST(Fp16, ConvolutionsMatchTheFp16Reference) {
    const uint64_t seed = test_seed();
    const bool runs = !fp16_refused_on_test_target();
    for (const Fp16Case &c : fp16_cases()) {
        const std::string text = network(c.input, c.layers);
        SCOPED_TRACE(c.what + ", seed " + std::to_string(seed) + " on " + test_target() + "\n" + text);
        ImportOptions options;
        options.fp16 = true;
        if (!runs) {  // refused, with the layer and the reason named
            try {
                check_network_text(text, c.what, options, seed);
                ADD_FAILURE() << "compiled in fp16 on a target that has no half arithmetic";
            } catch (const CompileError &e) {
                EXPECT_NE(std::string(e.what()).find("conv2d_fp16"), std::string::npos) << e.what();
                EXPECT_NE(std::string(e.what()).find("layer '"), std::string::npos) << e.what();
            }
            continue;
        }
        const BlobCheck check = check_network_text(text, c.what, options, seed);
        EXPECT_GT(check.blobs_checked, 1);
        EXPECT_LE(check.worst_error, check.tolerance) << "worst blob: " << check.worst_blob;
        // Where the products are summed in fp32 (CPUs without half arithmetic), the kernel is the
        // reference's arithmetic up to float rounding: far closer to it than an fp32 kernel that
        // skipped the rounding to half would be. Elsewhere the half sums differ from the
        // reference by about as much as the rounding itself.
        if (sums_in_fp32_on_test_target()) {
            EXPECT_LT(check.worst_error * 20, precision_effect(
                                                  text, [](Graph &g) { apply_fp16_precision(g, "fp16"); }, seed, 0.1))
                << "worst blob: " << check.worst_blob;
        }
    }
}

TEST(Fp16, RoundingToHalf) {
    // Every half survives the round trip, and each float rounds as the compiler's _Float16 does.
    for (uint32_t h = 0; h < 65536; h++) {
        const float v = ops::half_value(uint16_t(h));
        if (std::isnan(v)) continue;
        ASSERT_EQ(ops::half_bits(v), uint16_t(h)) << h;
    }
    std::mt19937 random(3);
    std::uniform_int_distribution<uint32_t> bits;
    for (int i = 0; i < 200000; i++) {
        uint32_t f = bits(random);
        if (i % 2) f = (f & 0x87ffffffu) | 0x38000000u;  // exponents 2^-15 to 2^0: subnormals and normals
        float x;
        std::memcpy(&x, &f, sizeof x);
        if (std::isnan(x)) continue;
        const _Float16 expected = static_cast<_Float16>(x);
        uint16_t expected_bits;
        std::memcpy(&expected_bits, &expected, sizeof expected_bits);
        ASSERT_EQ(ops::half_bits(x), expected_bits) << x;
    }
    EXPECT_EQ(ops::half_bits(65519.0f), 0x7bffu);            // below the midpoint to infinity
    EXPECT_EQ(ops::half_bits(65520.0f), 0x7c00u);            // the midpoint, ties away from 65504's odd mantissa
    EXPECT_EQ(ops::half_bits(1.0f + 1.0f / 2048), 0x3c00u);  // a tie to even, down
    EXPECT_EQ(ops::half_bits(1.0f + 3.0f / 2048), 0x3c02u);  // a tie to even, up
    EXPECT_TRUE(std::isnan(ops::round_to_half(std::nanf(""))));
    ops::Conv2dShape s;
    s.in_channels = 96;
    EXPECT_EQ(ops::fp16_chunk_channels(s, 10), 8);
    s.in_channels = 7;
    EXPECT_EQ(ops::fp16_chunk_channels(s, 5), 1);
    s.in_channels = 64, s.group = 2;
    EXPECT_EQ(ops::fp16_chunk_channels(s, 100), 32);
}

TEST(Fp16, PrecisionThroughTheCliAndItsErrors) {
    const TemporaryDirectory dir("cortado-fp16");
    const std::string net = dir.path() + "/net.prototxt";
    std::ofstream(net) << network({1, 8, 10, 10}, conv_layer("c1", "data", "c1", 16, "kernel_size: 3 pad: 1") +
                                                      conv_layer("dw", "c1", "dw", 16, "kernel_size: 3 group: 16"));
    Result r = cortado("run " + net + " --precision fp16 --check --iterations 1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("every blob"), std::string::npos) << r.output;
    r = cortado("info " + net + " --precision fp16 --plan");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("conv2d_fp16"), std::string::npos) << r.output;  // c1
    EXPECT_NE(r.output.find("dw "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("fp16: fp32 input and weights rounded to half"), std::string::npos) << r.output;

    r = cortado("run " + net + " --precision fp16 --qparams " + dir.path() + "/none.qparams");
    EXPECT_EQ(r.exit_code, 2) << r.output;  // a usage error
    EXPECT_NE(r.output.find("--qparams goes with --precision int8"), std::string::npos) << r.output;
    r = cortado("run " + net + " --precision fp8");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("give fp32, fp16 or int8"), std::string::npos) << r.output;
    // No half arithmetic on HVX: every convolution is refused, and the error names the first.
    r = cortado("compile " + net + " --precision fp16 --target hexagon-hvx -o " + dir.path() + "/hvx");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("layer 'c1'"), std::string::npos) << r.output;
    const std::string pools = dir.path() + "/pool.prototxt";
    std::ofstream(pools) << network({1, 8, 10, 10},
                                    "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: "
                                    "\"p\" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n");
    r = cortado("run " + pools + " --precision fp16");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("the network has none"), std::string::npos) << r.output;
}

TEST(Fp16, KernelsUseHalfArithmetic) {
    const TemporaryDirectory dir("cortado-fp16-asm");
    const std::string net = dir.path() + "/net.prototxt";
    std::ofstream(net) << network({1, 16, 12, 12}, conv_layer("c1", "data", "c1", 64, "kernel_size: 3 pad: 1") +
                                                       conv_layer("c2", "c1", "c2", 32, "kernel_size: 1"));
    namespace fs = std::filesystem;
    for (const auto &[target, instruction] : std::vector<std::tuple<std::string, std::string>>{
             {"arm-64-linux-fp16", "fmla\tv"},  // with a half vector of eight on the line
             {"cuda-h100", "fma.rn.f16x2"}}) {  // the PTX is a string in the host's assembly
        SCOPED_TRACE(target);
        const std::string cache = dir.path() + "/cache-" + target;
        const Result r =
            cortado("compile " + net + " --precision fp16 --target " + target + " -o " + dir.path() + "/out-" + target,
                    "CORTADO_CACHE=" + cache + " CORTADO_DEBUG_ASM=1");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        int fp16_kernels = 0;
        for (const fs::directory_entry &entry : fs::directory_iterator(cache)) {
            std::ifstream signature(entry.path() / "signature.txt");
            std::string key;
            std::getline(signature, key);
            if (key.rfind("conv2d_fp16|", 0) != 0) continue;
            fp16_kernels++;
            const std::string name = entry.path().filename().string();
            const fs::path assembly = entry.path() / (name.substr(0, name.rfind('-')) + ".s");
            std::ifstream file(assembly);
            ASSERT_TRUE(file) << assembly;
            const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            bool found = false;  // a line with the instruction (on ARM, an FMA on eight halves)
            std::istringstream lines(text);
            for (std::string line; std::getline(lines, line);)
                found |= line.find(instruction) != std::string::npos &&
                         (target != "arm-64-linux-fp16" || line.find(".8h") != std::string::npos);
            EXPECT_TRUE(found) << "no " << instruction << " in " << assembly;
        }
        EXPECT_EQ(fp16_kernels, 2) << r.output;
    }
}

}  // namespace
}  // namespace cortado::testing
