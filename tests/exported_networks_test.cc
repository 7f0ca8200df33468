// torchvision's networks built from a seed with random initialisation and exported to ONNX by
// PyTorch (tools/bench/export_torchvision.py), run through `cortado run` on the test target and
// compared with onnxruntime's outputs: AlexNet, ResNet-18, ResNet-50, SqueezeNet 1.1 and
// MobileNetV2 at opset 13, and the ten networks of today's ops (hard-swish, squeeze-and-excitation,
// SiLU, channel shuffle, dense concatenation, grouped convolution, segmentation heads with
// bilinear upsampling) at opsets 13 and 17 as exported, and 21 through onnx.version_converter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "tests/cli_process.h"
#include "tests/network_harness.h"
#include "tests/peer_outputs.h"

namespace cortado::testing {
namespace {
namespace fs = std::filesystem;

// The networks of today's ops, run at three opsets; the classic ones run at opset 13.
const std::set<std::string> kNewerNetworks = {
    "mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0", "shufflenet_v2_x1_0",    "densenet121",
    "regnet_y_400mf",     "resnext50_32x4d",    "vgg11_bn",        "fcn_resnet50", "lraspp_mobilenet_v3_large"};

class Exported : public ::testing::TestWithParam<std::string> {
  protected:
    // Exports only the networks of the tests that will run (the OpenCL suite runs three).
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("cortado-exported-" + std::to_string(::getpid()));
        const std::string log = dir_.string() + ".log";
        // Each test's model: its parameter (printed with quotes), or the bench test's network.
        std::set<std::string> models, classic, newer;
        const ::testing::TestSuite *suite = ::testing::UnitTest::GetInstance()->current_test_suite();
        for (int i = 0; i < suite->total_test_count(); i++) {
            const ::testing::TestInfo *test = suite->GetTestInfo(i);
            if (!test->should_run()) continue;
            const std::string param = test->value_param() ? test->value_param() : "\"squeezenet1_1\"";
            const std::string model = param.substr(1, param.size() - 2);
            const std::string network = model.substr(0, model.find("-opset"));
            models.insert(model);
            (kNewerNetworks.count(network) ? newer : classic).insert(network);
        }
        made_ = true;
        const auto run = [&](const std::string &command, const std::set<std::string> &names) {
            std::string line = command;
            for (const std::string &name : names) line += " " + name;
            made_ = made_ && std::system((line + " >> " + log + " 2>&1").c_str()) == 0;
        };
        const std::string export_models = std::string(CORTADO_SYSTEM_PYTHON) + " " + CORTADO_SOURCE_DIR +
                                          "/tools/bench/export_torchvision.py " + dir_.string() + " " +
                                          std::to_string(test_seed());
        if (!classic.empty()) run(export_models, classic);
        if (!newer.empty()) {
            run(export_models + " --opsets 13,17", newer);
            run(std::string(CORTADO_PYTHON) + " " + CORTADO_SOURCE_DIR + "/tests/onnx/convert_opset.py " +
                    dir_.string() + " 17 21",
                newer);
        }
        run(std::string(CORTADO_PYTHON) + " " + CORTADO_SOURCE_DIR + "/tests/onnx/run_onnxruntime.py " +
                dir_.string(),
            models);
    }
    static void TearDownTestSuite() {
        fs::remove_all(dir_);
        fs::remove(dir_.string() + ".log");
    }
    void SetUp() override {
        ASSERT_TRUE(made_) << "exporting the networks or running onnxruntime failed (python3-torch and "
                           << "python3-torchvision come from tools/bootstrap.sh); see " << dir_.string() << ".log";
    }
    static std::string file(const std::string &name) { return (dir_ / name).string(); }

    static inline fs::path dir_;
    static inline bool made_ = false;
};

TEST_P(Exported, MatchesOnnxRuntime) {
    const std::string name = GetParam();
    SCOPED_TRACE(name + " on " + test_target());
    const std::string network = name.substr(0, name.find("-opset"));
    const Result r = cortado("run " + file(name + ".onnx") + " --batch 1 --target " + test_target() + " --input " +
                             file(network + ".input.npy") + " --output " + file(name + ".out.npy") +
                             " --iterations 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<int64_t> ours_shape, theirs_shape;
    const std::vector<float> ours = npy_floats(file(name + ".out.npy"), &ours_shape);
    const std::vector<float> theirs = npy_floats(file(name + ".expected.npy"), &theirs_shape);
    ASSERT_EQ(ours_shape, theirs_shape);
    // 1000 classes, or 21 classes per pixel of the input for the segmentation networks.
    const bool segments = network == "fcn_resnet50" || network == "lraspp_mobilenet_v3_large";
    const std::vector<int64_t> expected_shape =
        segments ? std::vector<int64_t>{1, 21, 224, 224} : std::vector<int64_t>{1, 1000};
    ASSERT_EQ(ours_shape, expected_shape);
    EXPECT_LE(relative_l2(ours, theirs), 1e-5) << "relative L2 error against onnxruntime";
    // The newer networks' files go once run (VGG's weights take half a gigabyte per opset); the
    // bench test reads squeezenet1_1's.
    if (kNewerNetworks.count(network)) fs::remove(file(name + ".onnx"));
}

// `cortado bench exported` on the models already made: onnxruntime (the python3 on PATH) is the
// peer, the outputs agree, and a network the suite lacks or a folder without the models is
// refused by name.
TEST_F(Exported, BenchTimesThemAgainstOnnxRuntime) {
    if (test_target() != "host") GTEST_SKIP() << "bench runs on the host; the test target is " << test_target();
    const std::string path = "PATH=" + fs::path(CORTADO_PYTHON).parent_path().string() + ":$PATH";
    Result r = cortado("bench exported --models " + dir_.string() + " --net squeezenet1_1 --batch 1,2 --iterations 2 " +
                           "--json " + file("bench.json"),
                       path);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("| squeezenet1_1 b1 |"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("| squeezenet1_1 b2 |"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("onnxruntime"), std::string::npos) << r.output;
    r = cortado("bench exported --models " + dir_.string() + " --net vgg16");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("no network 'vgg16'"), std::string::npos) << r.output;
    r = cortado("bench exported --models " + fs::temp_directory_path().string() + " --net resnet18");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("resnet18.onnx: missing"), std::string::npos) << r.output;
}

// The classic networks at opset 13, then each of the newer ones at opsets 13, 17 and 21.
std::vector<std::string> exported_models() {
    std::vector<std::string> models = {"alexnet", "resnet18", "resnet50", "squeezenet1_1", "mobilenet_v2"};
    for (const std::string &network : kNewerNetworks)
        for (const char *opset : {"", "-opset17", "-opset21"}) models.push_back(network + opset);
    return models;
}

INSTANTIATE_TEST_SUITE_P(Torchvision, Exported, ::testing::ValuesIn(exported_models()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

}  // namespace
}  // namespace cortado::testing
