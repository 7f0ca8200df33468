// ONNX models in: models built with onnx's helpers (tests/onnx/make_models.py, from the test seed)
// compile and run through `cortado run` on the test target, and match onnxruntime's outputs and
// the double-precision reference; compile writes the model's weights; bad models are refused
// with a message naming the node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compiler/target_description.h"
#include "tests/cli_process.h"
#include "tests/network_harness.h"
#include "tests/peer_outputs.h"

namespace cortado::testing {
namespace {
namespace fs = std::filesystem;

class Onnx : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("cortado-onnx-" + std::to_string(::getpid()));
        seed_ = test_seed();
        const std::string command = std::string(CORTADO_PYTHON) + " " + CORTADO_SOURCE_DIR +
                                    "/tests/onnx/make_models.py " + dir_.string() + " " + std::to_string(seed_) +
                                    " > " + (dir_.string() + ".log") + " 2>&1";
        made_ = std::system(command.c_str()) == 0;
    }
    static void TearDownTestSuite() {
        fs::remove_all(dir_);
        fs::remove(dir_.string() + ".log");
    }
    void SetUp() override {
        ASSERT_TRUE(made_) << "tests/onnx/make_models.py failed (onnx and onnxruntime come from tools/bootstrap.sh); "
                           << "see " << dir_.string() << ".log";
    }
    static std::string model(const std::string &name) { return (dir_ / (name + ".onnx")).string(); }
    static std::string file(const std::string &name) { return (dir_ / name).string(); }

    static inline fs::path dir_;
    static inline bool made_ = false;
    // The models' random weights and inputs come from it: CORTADO_TEST_SEED=N repeats a failure.
    static inline uint64_t seed_ = 0;
};

TEST_F(Onnx, ModelsMatchOnnxRuntimeAndTheReference) {
    for (const std::string name : {"classifier",
                                   "normalised",
                                   "branches",
                                   "same_padding",
                                   "reshapes",
                                   "arithmetic",
                                   "clip_attributes",
                                   "padding",
                                   "pooling_pads",
                                   "far_pads",
                                   "transposed_gemm",
                                   "legacy",
                                   "legacy_six",
                                   "folded",
                                   "newest",
                                   "newest_18",
                                   "activations",
                                   "rearranged",
                                   "rearranged_18",
                                   "resized",
                                   "one_dimensional",
                                   "normalisations",
                                   "log_softmaxes",
                                   "log_softmaxes_11",
                                   "batched_matmul",
                                   "fused_activations",
                                   "squeeze_excitation"}) {
        // Another opset's twin of a model imports to the same layers, hence the same kernels: it
        // checks the import, on the host.
        const bool twin = name == "newest_18" || name == "rearranged_18" || name == "log_softmaxes_11";
        if (twin && test_target() != "host") continue;
        SCOPED_TRACE(name + " on " + test_target() + ", models from CORTADO_TEST_SEED=" + std::to_string(seed_));
        const Result r =
            cortado("run " + model(name) + " --target " + test_target() + " --input " + file(name + ".input.npy") +
                    " --output " + file(name + ".out.npy") + " --check --iterations 1");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("weights: the model's initializers"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
        std::vector<int64_t> ours_shape, theirs_shape;
        const std::vector<float> ours = npy_floats(file(name + ".out.npy"), &ours_shape);
        const std::vector<float> theirs = npy_floats(file(name + ".expected.npy"), &theirs_shape);
        ASSERT_EQ(ours_shape, theirs_shape);
        EXPECT_LE(relative_l2(ours, theirs), 1e-5) << "relative L2 error against onnxruntime";
    }
}

// Quantized models (tests/onnx/quantized_models.py): QDQ pairs and the QLinear ops written by
// hand, and a residual network as onnxruntime's quantize_static writes it, with weights per tensor
// and per channel. In fp32 cortado runs each quantization as a step of its own; with --precision
// int8, where the target has an int8 convolution, the convolutions that read a quantized tensor
// compute in int8. onnxruntime's integer kernels and cortado may put a value at a step's edge on
// either side, so the outputs must agree within one step of the output's quantization on at
// least 99% of the elements, with the same top-1 for every image (or a tie within a step).
TEST_F(Onnx, ModelsMatchOnnxRuntimeWithinAQuantizationStep) {
    std::vector<std::string> precisions = {"fp32"};
    if (int8_test_target()) precisions.push_back("int8");
    for (const std::string name : {"qdq", "qlinear", "quantize_static", "quantize_static_per_channel"})
        for (const std::string &precision : precisions) {
            SCOPED_TRACE(name + " in " + precision + " on " + test_target() +
                         ", models from CORTADO_TEST_SEED=" + std::to_string(seed_));
            const std::string args = model(name) + " --target " + test_target() + " --precision " + precision;
            const Result r = cortado("run " + args + " --input " + file(name + ".input.npy") + " --output " +
                                     file(name + ".out.npy") + " --check --iterations 1");
            ASSERT_EQ(r.exit_code, 0) << r.output;
            EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
            std::vector<int64_t> ours_shape, theirs_shape;
            const std::vector<float> ours = npy_floats(file(name + ".out.npy"), &ours_shape);
            const std::vector<float> theirs = npy_floats(file(name + ".expected.npy"), &theirs_shape);
            ASSERT_EQ(ours_shape, theirs_shape);
            double step = 0;
            std::ifstream(file(name + ".step")) >> step;
            ASSERT_GT(step, 0) << "no step in " << file(name + ".step");
            size_t within = 0;
            for (size_t i = 0; i < ours.size(); i++) within += std::fabs(ours[i] - theirs[i]) <= step * 1.001;
            EXPECT_GE(double(within), 0.99 * double(ours.size()))
                << within << " of " << ours.size() << " within a step";
            // The same top-1, unless our two best are within a step (a tie that one step decides).
            const size_t classes = size_t(ours_shape.back());
            for (size_t at = 0; at + classes <= ours.size(); at += classes) {
                const auto best = std::max_element(ours.begin() + at, ours.begin() + at + classes);
                const size_t theirs_best =
                    size_t(std::max_element(theirs.begin() + at, theirs.begin() + at + classes) - theirs.begin());
                EXPECT_LE(*best - ours[theirs_best], step * 1.001) << "top-1 of image " << at / classes;
            }
            if (precision == "int8") {
                const Result plan = cortado("info " + args + " --plan");
                EXPECT_NE(plan.output.find("conv2d_int8"), std::string::npos) << plan.output;
            }
        }
}

// prebuilt_network_check (which checks on the GPU machine what was compiled here) plans the
// network again, so it must be told what the library was compiled with: `cortado compile MODEL
// OPTION` for the host, then the checker with OPTION passes every blob, and without it plans other
// steps and refuses the library as another graph's.
void expect_checked_only_as_compiled(const std::string &model_path, const std::string &option,
                                     const std::string &dir) {
    const Result compiled = cortado("compile " + model_path + " " + option + " --name net --shared -o " + dir);
    ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
    const std::string check = std::string(CORTADO_CHECKER) + " " + model_path + " " + dir + "/libnet.so " +
                              resolve_target("host").halide_target + " --own-weights --iterations 0";
    const Result as_compiled = shell(check + " " + option);
    ASSERT_EQ(as_compiled.exit_code, 0) << as_compiled.output;
    EXPECT_NE(as_compiled.output.find("PASS"), std::string::npos) << as_compiled.output;
    EXPECT_EQ(as_compiled.output.find("FAIL"), std::string::npos) << as_compiled.output;
    const Result otherwise = shell(check);
    EXPECT_NE(otherwise.exit_code, 0) << otherwise.output;
    EXPECT_NE(otherwise.output.find("compiled from another graph"), std::string::npos) << otherwise.output;
}

// A quantized model in int8 with its own scales (tools/bench/gpu-accuracy.sh), and a build with
// every layer its own step (tools/bench/gpu-whole-networks.sh checks both builds of a network).
TEST_F(Onnx, PrebuiltCheckerPlansTheLibraryAsCompiled) {
    if (test_target() != "host")
        GTEST_SKIP() << "the checker built here runs host libraries; this suite's target is " << test_target();
    {
        SCOPED_TRACE("--precision int8");
        expect_checked_only_as_compiled(model("quantize_static_per_channel"), "--precision int8",
                                        file("checked-int8"));
    }
    SCOPED_TRACE("--no-fusion");
    expect_checked_only_as_compiled(model("normalised"), "--no-fusion", file("checked-unfused"));
}

// A network of today's ops exported by PyTorch 2.11's torch.export-based exporter (opset 20, IR
// 10, Reshape with allowzero=1, LayerNormalization, Gelu, LogSoftmax), which Debian's PyTorch
// cannot write: tests/onnx/export_dynamo.py wrote it on the GPU machine, with its input and
// onnxruntime 1.30's output, into tests/onnx/dynamo/.
TEST_F(Onnx, ModelFromPyTorchsCurrentExporterMatchesOnnxRuntime) {
    const std::string dir = std::string(CORTADO_SOURCE_DIR) + "/tests/onnx/dynamo/";
    const Result r = cortado("run " + dir + "todays_ops.onnx --target " + test_target() + " --input " + dir +
                             "todays_ops.input.npy --output " + file("todays_ops.out.npy") + " --check --iterations 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
    std::vector<int64_t> ours_shape, theirs_shape;
    const std::vector<float> ours = npy_floats(file("todays_ops.out.npy"), &ours_shape);
    const std::vector<float> theirs = npy_floats(dir + "todays_ops.expected.npy", &theirs_shape);
    ASSERT_EQ(ours_shape, theirs_shape);
    EXPECT_LE(relative_l2(ours, theirs), 1e-5) << "relative L2 error against onnxruntime";
}

// The HVX family has schedules for every op too, though nothing here can run them: the models of
// the newer ops (data movement, 1-D layers, and one node of each schedule of the activations and
// resizing models: hvx_sample, since each HVX kernel takes seconds to compile) compile for
// Hexagon, and so does a quantized model's Quantize activation, in fp32 and with its
// convolutions in int8 (the HVX int8 variant).
TEST_F(Onnx, ModelsCompileForHexagon) {
    for (const std::string name : {"hvx_sample", "rearranged", "one_dimensional", "qdq"}) {
        const Result r = cortado("compile " + model(name) + " --target hexagon-hvx --shared -o " +
                                 (dir_ / ("hvx-" + name)).string());
        EXPECT_EQ(r.exit_code, 0) << name << ": " << r.output;
    }
    const Result plan =
        cortado("info " + model("quantize_static_per_channel") + " --plan --precision int8 --target hexagon-hvx");
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    EXPECT_NE(plan.output.find("hvx_int8_channel_lanes"), std::string::npos) << plan.output;
    const Result r = cortado("compile " + model("quantize_static_per_channel") +
                             " --precision int8 --target hexagon-hvx --shared -o " + (dir_ / "hvx-int8").string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(Onnx, CompileWritesTheModelsWeightsBesideTheLibrary) {
    const fs::path out = dir_ / "compiled";
    const Result r = cortado("compile " + model("classifier") + " --name classifier -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::exists(out / "libclassifier.a")) << r.output;
    EXPECT_TRUE(fs::exists(out / "classifier.caffemodel")) << r.output;
    EXPECT_NE(r.output.find("pass it to classifier_create"), std::string::npos) << r.output;
    Result info = cortado("info " + model("normalised"));
    ASSERT_EQ(info.exit_code, 0) << info.output;
    EXPECT_NE(info.output.find("BatchNorm"), std::string::npos) << info.output;
    // A Relu that alone reads a convolution's output is folded into it, as a Caffe in-place one.
    info = cortado("info " + model("classifier"));
    EXPECT_NE(info.output.find("folded into the layer before: r1_node into c1_node"), std::string::npos) << info.output;
}

// --embed-weights links the initializers into the library: a program that calls
// NAME_create_embedded() matches onnxruntime with the caffemodel beside the library deleted.
TEST_F(Onnx, EmbeddedWeightsTravelInTheLibrary) {
    const fs::path out = dir_ / "embedded";
    const Result r =
        cortado("compile " + model("classifier") + " --name classifier --embed-weights -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("classifier_create_embedded() loads them"), std::string::npos) << r.output;
    fs::rename(out / "classifier.caffemodel", dir_ / "other.caffemodel");
    std::vector<int64_t> shape;
    const std::vector<float> input = npy_floats(file("classifier.input.npy"), &shape);
    std::ofstream(out / "input.f32", std::ios::binary)
        .write(reinterpret_cast<const char *>(input.data()), std::streamsize(input.size() * sizeof(float)));
    std::ofstream(out / "main.cc") << R"(#include <cstdio>
#include "classifier.h"
int main(int, char **argv) {
    static float input[classifier_INPUT_COUNT], output[classifier_OUTPUT_COUNT];
    FILE *in = std::fopen(argv[1], "rb");
    if (!in || std::fread(input, sizeof input, 1, in) != 1) return 3;
    classifier_context *net = classifier_create_embedded();
    if (!net) { std::fprintf(stderr, "%s\n", classifier_last_error()); return 1; }
    if (classifier_forward(net, input, output) != 0) return 2;
    FILE *o = std::fopen(argv[2], "wb");
    std::fwrite(output, sizeof output, 1, o);
    std::fclose(o);
    classifier_destroy(net);
}
)";
    const std::string o = out.string();
    const std::string build = std::string(CORTADO_CXX) + " -std=c++17 -I" + o + " " + o + "/main.cc " + o +
                              "/libclassifier.a -lpthread -ldl -lm -o " + o + "/app 2>&1";
    ASSERT_EQ(std::system(build.c_str()), 0) << build;
    ASSERT_EQ(std::system((o + "/app " + o + "/input.f32 " + o + "/output.f32").c_str()), 0);
    std::ifstream result(out / "output.f32", std::ios::binary);
    const std::vector<float> expected = npy_floats(file("classifier.expected.npy"), &shape);
    std::vector<float> ours(expected.size());
    result.read(reinterpret_cast<char *>(ours.data()), std::streamsize(ours.size() * sizeof(float)));
    ASSERT_TRUE(result) << "the program wrote too few floats";
    EXPECT_LE(relative_l2(ours, expected), 1e-5) << "relative L2 error against onnxruntime";

    const Result stray = cortado("compile " + model("classifier") + " --weights x.caffemodel --embed-weights -o " + o);
    EXPECT_EQ(stray.exit_code, 2) << stray.output;
    EXPECT_NE(stray.output.find("an ONNX model carries its weights"), std::string::npos) << stray.output;
    // Weights of another network are refused when compiled in, naming the layer they lack.
    const std::string net = file("conv.prototxt");
    std::ofstream(net) << "name: \"c\"\ninput: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 5 dim: 5 }\n"
                          "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" "
                          "convolution_param { num_output: 2 kernel_size: 3 } }\n";
    const Result foreign =
        cortado("compile " + net + " --embed-weights --weights " + file("other.caffemodel") + " -o " + o);
    EXPECT_EQ(foreign.exit_code, 1) << foreign.output;
    EXPECT_NE(foreign.output.find("layer 'c' has no weights"), std::string::npos) << foreign.output;
}

TEST_F(Onnx, BadModelsAreRefusedNamingTheNode) {
    const fs::path truncated = dir_ / "truncated.onnx";
    {
        std::ifstream in(model("classifier"), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    }
    const struct {
        std::string file, message;
    } cases[] = {
        {model("bad_op"), "node 'y_node' (Sin, opset 13): this op is not supported yet"},
        {model("bad_opset"), "opset 29 of the default domain; cortado reads opsets 1 to 28"},
        {model("bad_mask"), "node 'y_node' (Dropout, opset 9): the mask output is used"},
        {model("bad_gather"),
         "node 'picked_node' (Gather, opset 13): evaluating it at import: index 5 outside an "
         "axis of 4"},
        {model("bad_computed_gather"),
         "node 'y_node' (Gather, opset 13): cortado evaluates Gather only on constants, at import"},
        {model("bad_two_inputs"), "the graph has 2 inputs besides its initializers"},
        {model("bad_open"), "input 'x' has dimensions the model leaves open; give --input-shape"},
        {model("bad_weights"), "initializer 'w' holds 280 bytes for 72 elements"},
        {model("bad_reflect"), "node 'y_node' (Pad, opset 13): reflect pads must be smaller than the plane"},
        {model("bad_bias"), "node 'y_node' (Conv, opset 13): the bias needs 4 values (one per output channel), not 5"},
        {model("bad_broadcast"), "node 'y_node' (Mul, opset 13): inputs of shapes 1x2x3x3 and 4x1x3 do not broadcast"},
        {model("bad_cubic"), "node 'y_node' (Resize, opset 13): mode cubic is not supported (nearest and linear only)"},
        {model("bad_matmul"),
         "node 'y_node' (MatMul, opset 13): the batch axes of A (1x4x3x5) and B (3x5x6) do not "
         "broadcast"},
        {model("bad_two_ops"), "2 nodes are refused:\n"},
        {model("bad_two_ops"), "node 's_node' (Sin, opset 13): this op is not supported yet\n"},
        {model("bad_two_ops"), "node 'c_node' (Cos, opset 13): this op is not supported yet"},
        {truncated.string(), "not a valid ONNX model"},
        {model("bad_integer_relu"), "node 'y_node' (Relu, opset 13): reads 'q', integers made by QuantizeLinear"},
        {model("bad_axis_quantize"),
         "node 'q_node' (QuantizeLinear, opset 13): per-axis quantization of computed data"},
        {model("bad_quantize_type"),
         "node 'q_node' (QuantizeLinear, opset 13): quantization to INT32 is not supported"},
        {model("bad_scale"), "node 'q_node' (QuantizeLinear, opset 13): scale 0.000000 is not positive"},
        {model("bad_float_dequantize"),
         "node 'y_node' (DequantizeLinear, opset 13): input 'x' must be a constant or "
         "integers made by QuantizeLinear"},
        {model("bad_integer_output"), "the graph output 'y' is integers"},
    };
    for (const auto &c : cases) {
        const Result r = cortado("info " + c.file);
        EXPECT_EQ(r.exit_code, 1) << c.file << "\n" << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.file << "\n" << r.output;
    }
    // The node after a refused one is passed over, not named.
    const Result two = cortado("info " + model("bad_two_ops"));
    EXPECT_EQ(two.output.find("r_node"), std::string::npos) << two.output;
    // --batch follows into a constant shape that spells out the model's batch.
    const Result batched = cortado("run " + model("reshapes") + " --batch 4 --iterations 1 --check");
    EXPECT_EQ(batched.exit_code, 0) << batched.output;
    EXPECT_NE(batched.output.find("PASS"), std::string::npos) << batched.output;
    const Result open = cortado("info " + model("bad_open") + " --input-shape 1x2x7x3");
    EXPECT_EQ(open.exit_code, 0) << open.output;
    // An ONNX model given as a prototxt's weights is named as one.
    const std::string net = file("relu.prototxt");
    std::ofstream(net) << "name: \"r\"\ninput: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 3 dim: 3 }\n"
                          "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n";
    const Result as_weights = cortado("run " + net + " --weights " + model("classifier"));
    EXPECT_EQ(as_weights.exit_code, 1) << as_weights.output;
    EXPECT_NE(as_weights.output.find("is an ONNX model, not a caffemodel"), std::string::npos) << as_weights.output;
}

}  // namespace
}  // namespace cortado::testing
