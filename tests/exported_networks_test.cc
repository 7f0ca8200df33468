// torchvision's AlexNet, ResNet-18, ResNet-50, SqueezeNet 1.1, MobileNetV2, and (with the ops of
// today's CNNs: hard-swish, squeeze-and-excitation, SiLU, channel shuffle) MobileNetV3-Small,
// EfficientNet-B0, RegNetY-400MF and ShuffleNetV2, built from a seed
// with random initialisation and exported to ONNX by PyTorch (tools/bench/export_torchvision.py), run
// through `cortado run` on the test target and compared with onnxruntime's outputs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/cli_process.h"
#include "tests/network_harness.h"
#include "tests/peer_outputs.h"

namespace cortado::testing {
namespace {
namespace fs = std::filesystem;

class Exported : public ::testing::TestWithParam<std::string> {
  protected:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("cortado-exported-" + std::to_string(::getpid()));
        const std::string log = dir_.string() + ".log";
        const std::string names =
            "alexnet resnet18 resnet50 squeezenet1_1 mobilenet_v2 mobilenet_v3_small efficientnet_b0 regnet_y_400mf "
            "shufflenet_v2_x1_0";
        const std::string export_models = std::string(CORTADO_SYSTEM_PYTHON) + " " + CORTADO_SOURCE_DIR +
                                          "/tools/bench/export_torchvision.py " + dir_.string() + " " +
                                          std::to_string(test_seed()) + " " + names + " > " + log + " 2>&1";
        const std::string peer = std::string(CORTADO_PYTHON) + " " + CORTADO_SOURCE_DIR +
                                 "/tests/onnx/run_onnxruntime.py " + dir_.string() + " " + names + " >> " + log +
                                 " 2>&1";
        made_ = std::system(export_models.c_str()) == 0 && std::system(peer.c_str()) == 0;
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
    const Result r = cortado("run " + file(name + ".onnx") + " --batch 1 --target " + test_target() + " --input " +
                             file(name + ".input.npy") + " --output " + file(name + ".out.npy") + " --iterations 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<int64_t> ours_shape, theirs_shape;
    const std::vector<float> ours = npy_floats(file(name + ".out.npy"), &ours_shape);
    const std::vector<float> theirs = npy_floats(file(name + ".expected.npy"), &theirs_shape);
    ASSERT_EQ(ours_shape, theirs_shape);
    ASSERT_EQ(ours_shape, (std::vector<int64_t>{1, 1000}));
    EXPECT_LE(relative_l2(ours, theirs), 1e-5) << "relative L2 error against onnxruntime";
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

INSTANTIATE_TEST_SUITE_P(Torchvision, Exported,
                         ::testing::Values("alexnet", "resnet18", "resnet50", "squeezenet1_1", "mobilenet_v2",
                                           "mobilenet_v3_small", "efficientnet_b0", "regnet_y_400mf",
                                           "shufflenet_v2_x1_0"),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

}  // namespace
}  // namespace cortado::testing
