// End to end: every real network in ../shared/models, compiled for the test target, matches the
// reference interpreter on every blob (relative L2 error <= 1e-5): the classic ones at batch 1
// and 2, ResNet-50 and SqueezeNet 1.1 at batch 1 (fewer beyond the host and under qemu, see below).
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/network_harness.h"

namespace cortado::testing {
namespace {

struct NetworkCase {
    const char *file;
    Shape input_shape;  // empty: the prototxt's own; batch is replaced below
};

class RealNetwork : public ::testing::TestWithParam<std::tuple<NetworkCase, int>> {};

std::string case_name(const ::testing::TestParamInfo<std::tuple<NetworkCase, int>> &info) {
    std::string name = std::get<0>(info.param).file;
    name = name.substr(0, name.find('.'));
    return name + "_batch" + std::to_string(std::get<1>(info.param));
}

TEST_P(RealNetwork, MatchesReferenceOnEveryBlob) {
    const std::string models = shared_models_dir();
    const std::string file = std::get<0>(GetParam()).file;
    const bool under_qemu = std::getenv("CORTADO_TEST_CHECKER") != nullptr;
    const bool host = test_target() == "host";
    // Under qemu, ResNet-50's 4 GFLOP alone would add minutes to the longest suite: the deep
    // networks run on the host, the generic family and PoCL; ARM64 runs the classic ones.
    if (under_qemu && (file == "resnet50.prototxt" || file == "squeezenet_v1.1.prototxt"))
        GTEST_SKIP() << file << " runs on the host, generic and PoCL suites, not under qemu";
    // AlexNet's train_val file differs from alexnet.prototxt only in what the frontend reads
    // (data layers, phases, V1 layer names); its kernels are AlexNet's, so other targets run those.
    if (!host && file == "alexnet_train_val.prototxt")
        GTEST_SKIP() << file << " checks the frontend, on the host; its kernels are alexnet.prototxt's";
    if (models.empty()) GTEST_SKIP() << "../shared/models is absent; real-network tests need it";
    const auto &[network, batch] = GetParam();
    // Each family's kernels loop over the batch alike: beyond the host, batch 2 runs on the small
    // networks and CaffeNet, and every network at batch 1 (batch 2 of GoogLeNet alone compiles
    // minutes of kernels on each family).
    const bool batch2_everywhere =
        file == "lenet.prototxt" || file.rfind("cifar10_", 0) == 0 || file == "caffenet.prototxt";
    if (!host && batch > 1 && !batch2_everywhere)
        GTEST_SKIP() << file << " at batch " << batch << " runs on the host; " << test_target()
                     << " runs batch 2 on the small networks and CaffeNet";
    ImportOptions options;
    options.input_shape = network.input_shape;
    options.batch = batch;
    const uint64_t seed = test_seed();
    SCOPED_TRACE(std::string(network.file) + " batch " + std::to_string(batch) + " seed " + std::to_string(seed));
    const BlobCheck check = check_network_file(models + "/" + network.file, options, seed);
    EXPECT_GT(check.blobs_checked, 5);
    EXPECT_EQ(check.all_zero_blobs, 0) << "weights or input left blobs all zero: the comparison proves nothing";
    EXPECT_LE(check.worst_error, check.tolerance) << "worst blob: " << check.worst_blob;
}

INSTANTIATE_TEST_SUITE_P(
    SharedModels, RealNetwork,
    ::testing::Combine(::testing::Values(NetworkCase{"lenet.prototxt", {}}, NetworkCase{"cifar10_quick.prototxt", {}},
                                         NetworkCase{"cifar10_full.prototxt", {}}, NetworkCase{"alexnet.prototxt", {}},
                                         NetworkCase{"caffenet.prototxt", {}},
                                         NetworkCase{"alexnet_train_val.prototxt", {1, 3, 227, 227}},
                                         NetworkCase{"nin_imagenet_train_val_v1.prototxt", {1, 3, 224, 224}},
                                         NetworkCase{"googlenet.prototxt", {}}),
                       ::testing::Values(1, 2)),
    [](const auto &info) { return case_name(info); });

INSTANTIATE_TEST_SUITE_P(DeepSharedModels, RealNetwork,
                         ::testing::Combine(::testing::Values(NetworkCase{"resnet50.prototxt", {}},
                                                              NetworkCase{"squeezenet_v1.1.prototxt", {}}),
                                            ::testing::Values(1)),
                         [](const auto &info) { return case_name(info); });

}  // namespace
}  // namespace cortado::testing
