// End to end: every real network in ../shared/models, compiled for the host at batch 1 and 2,
// matches the reference interpreter on every blob (relative L2 error <= 1e-5).
#include <gtest/gtest.h>

#include "tests/network_harness.h"

namespace cortado::testing {
namespace {

struct NetworkCase {
    const char *file;
    Shape input_shape;  // empty: the prototxt's own; batch is replaced below
};

class RealNetwork : public ::testing::TestWithParam<std::tuple<NetworkCase, int>> {};

TEST_P(RealNetwork, MatchesReferenceOnEveryBlob) {
    const std::string models = shared_models_dir();
    if (models.empty()) GTEST_SKIP() << "../shared/models is absent; real-network tests need it";
    const auto &[network, batch] = GetParam();
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
    [](const auto &info) {
        std::string name = std::get<0>(info.param).file;
        name = name.substr(0, name.find('.'));
        return name + "_batch" + std::to_string(std::get<1>(info.param));
    });

}  // namespace
}  // namespace cortado::testing
