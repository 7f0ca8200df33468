// The trained digits network (models/digits, from tools/train_digits.py) through both
// frontends, the prototxt with its caffemodel and the ONNX export: on the test target, its
// predictions on the held-out images equal the trainer's, except where the trainer's top-2
// margin is below 1e-5, and its accuracy equals the trainer's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "compiler/target_description.h"
#include "compiler/temporary_directory.h"
#include "frontend/npy.h"
#include "tests/cli_process.h"
#include "tests/network_harness.h"
#include "tests/peer_outputs.h"

namespace cortado::testing {
namespace {

const std::string kModels = CORTADO_SOURCE_DIR "/models/digits/";

TEST(Digits, PredictionsAndAccuracyEqualTheTrainersThroughBothFrontends) {
    std::ifstream record_file(kModels + "trainer.json");
    ASSERT_TRUE(record_file) << kModels << "trainer.json is missing";
    const nlohmann::json record = nlohmann::json::parse(record_file);
    const std::vector<int> labels = record["labels"], predictions = record["predictions"];
    const std::vector<double> margins = record["top2_margins"];
    const double trainer_accuracy = record["accuracy"];
    const size_t count = labels.size();
    ASSERT_EQ(predictions.size(), count);

    const TemporaryDirectory scratch("cortado-digits");
    for (const std::string &network :
         {"lenet.prototxt --weights " + kModels + "lenet.caffemodel", std::string("lenet.onnx")}) {
        SCOPED_TRACE(network + " on " + test_target());
        const std::string output = scratch.path() + "/scores.npy";
        const Result r =
            cortado("run " + kModels + network + " --target " + test_target() + " --batch " + std::to_string(count) +
                    " --input " + kModels + "heldout_images.npy --output " + output + " --iterations 1 --check");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
        std::vector<int64_t> shape;
        const std::vector<float> scores = npy_floats(output, &shape);
        ASSERT_EQ(shape, (std::vector<int64_t>{int64_t(count), 10}));
        size_t correct = 0, differing = 0;
        for (size_t i = 0; i < count; i++) {
            const float *row = &scores[i * 10];
            const int predicted = int(std::max_element(row, row + 10) - row);
            correct += predicted == labels[i];
            if (predicted != predictions[i]) {
                differing++;
                EXPECT_LT(margins[i], 1e-5) << "image " << i << ": cortado says " << predicted << ", the trainer "
                                            << predictions[i] << " with a top-2 margin of " << margins[i];
            }
        }
        EXPECT_EQ(double(correct) / double(count), trainer_accuracy)
            << correct << " of " << count << " right; " << differing << " predictions differ from the trainer's";
    }
}

// The scores of `network` (a model file, then its options) in low precision (`precision`:
// "--qparams F" or "--precision fp16") on the held-out images. Here, `cortado run --check`; on a
// cross target (ARM64 under qemu, $CORTADO_TEST_CHECKER), the library compiled here and run by the
// target's checker, which also checks every blob against the reference with the same weights.
Result low_precision_scores(const std::string &network, const std::string &precision, const std::string &images,
                            size_t count, const std::string &output, const std::string &scratch) {
    const std::string batch = " --batch " + std::to_string(count);
    const char *checker = std::getenv("CORTADO_TEST_CHECKER");
    if (!checker)
        return cortado("run " + network + " " + precision + " --target " + test_target() + batch + " --input " +
                       images + " --output " + output + " --iterations 1 --check");
    const std::string model = network.substr(0, network.find(' '));
    const size_t weights_at = network.find("--weights ");
    const std::string weights = weights_at == std::string::npos ? " --own-weights" : " " + network.substr(weights_at);
    const std::string dir = scratch + "/lib";
    const Result compiled = cortado("compile " + model + " " + precision + " --target " + test_target() + batch +
                                    " --name net --shared -o " + dir);
    if (compiled.exit_code != 0) return compiled;
    return shell(std::string(checker) + " " + model + " " + dir + "/libnet.so " +
                 resolve_target(test_target()).halide_target + batch + " " + precision + weights + " --input " +
                 images + " --output " + output + " --iterations 0");
}

// The share of the held-out images whose top score is their label.
double accuracy(const std::string &scores_npy, const std::vector<int> &labels) {
    std::vector<int64_t> shape;
    const std::vector<float> scores = npy_floats(scores_npy, &shape);
    EXPECT_EQ(shape, (std::vector<int64_t>{int64_t(labels.size()), 10}));
    if (scores.size() != labels.size() * 10) return 0;
    size_t correct = 0;
    for (size_t i = 0; i < labels.size(); i++) {
        const float *row = &scores[i * 10];
        correct += int(std::max_element(row, row + 10) - row) == labels[i];
    }
    return double(correct) / double(labels.size());
}

// int8 (docs/precision.md): calibrated on the first 100 held-out images by each method, through
// both frontends, the accuracy on all of them stays within half a percentage point of the
// trainer's fp32 accuracy. Families without an int8 convolution refuse it by name.
TEST(Digits, Int8AccuracyWithinHalfAPointOfFp32ThroughBothFrontends) {
    std::ifstream record_file(kModels + "trainer.json");
    ASSERT_TRUE(record_file) << kModels << "trainer.json is missing";
    const nlohmann::json record = nlohmann::json::parse(record_file);
    const std::vector<int> labels = record["labels"];
    const double trainer_accuracy = record["accuracy"];
    const size_t count = labels.size();
    std::vector<int64_t> shape;
    const std::vector<float> images = npy_floats(kModels + "heldout_images.npy", &shape);
    ASSERT_EQ(size_t(shape.at(0)), count);
    const TemporaryDirectory scratch("cortado-digits-int8");
    const std::string calibration = scratch.path() + "/calibration.npy";
    std::string error;
    std::vector<int64_t> calibration_shape = shape;
    calibration_shape[0] = 100;
    ASSERT_TRUE(write_npy(calibration, calibration_shape, images.data(), &error)) << error;
    for (const std::string &network :
         {"lenet.prototxt --weights " + kModels + "lenet.caffemodel", std::string("lenet.onnx")}) {
        for (const std::string method : {"minmax", "percentile", "entropy"}) {
            SCOPED_TRACE(network + ", " + method + ", on " + test_target());
            const std::string qparams = scratch.path() + "/lenet-" + method + ".qparams";
            const Result q = cortado("quantize " + kModels + network + " --calibrate " + calibration + " --method " +
                                     method + " --target " + test_target() + " -o " + qparams);
            ASSERT_EQ(q.exit_code, 0) << q.output;
            EXPECT_NE(q.output.find("2 of 2 convolutions in int8"), std::string::npos) << q.output;
            const std::string output = scratch.path() + "/scores.npy";
            const Result r = low_precision_scores(kModels + network, "--qparams " + qparams,
                                                  kModels + "heldout_images.npy", count, output, scratch.path());
            if (!int8_test_target()) {
                EXPECT_EQ(r.exit_code, 1) << r.output;
                EXPECT_NE(r.output.find("no variant for conv2d_int8"), std::string::npos) << r.output;
                continue;
            }
            ASSERT_EQ(r.exit_code, 0) << r.output;
            EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
            EXPECT_NEAR(accuracy(output, labels), trainer_accuracy, 0.005);
        }
    }
}

// fp16 (docs/precision.md): through both frontends, the accuracy on the held-out images stays
// within half a percentage point of the trainer's fp32 accuracy, every blob checked against the
// fp16 reference. OpenCL without the cl_half feature (PoCL) refuses it by layer.
TEST(Digits, Fp16AccuracyWithinHalfAPointOfFp32ThroughBothFrontends) {
    std::ifstream record_file(kModels + "trainer.json");
    ASSERT_TRUE(record_file) << kModels << "trainer.json is missing";
    const nlohmann::json record = nlohmann::json::parse(record_file);
    const std::vector<int> labels = record["labels"];
    const double trainer_accuracy = record["accuracy"];
    const std::string halide_target = resolve_target(test_target()).halide_target;
    const bool refuses =
        halide_target.find("opencl") != std::string::npos && halide_target.find("cl_half") == std::string::npos;
    const TemporaryDirectory scratch("cortado-digits-fp16");
    for (const std::string &network :
         {"lenet.prototxt --weights " + kModels + "lenet.caffemodel", std::string("lenet.onnx")}) {
        SCOPED_TRACE(network + " on " + test_target());
        const std::string output = scratch.path() + "/scores.npy";
        const Result r = low_precision_scores(kModels + network, "--precision fp16", kModels + "heldout_images.npy",
                                              labels.size(), output, scratch.path());
        if (refuses) {
            EXPECT_EQ(r.exit_code, 1) << r.output;
            EXPECT_NE(r.output.find("cl_half"), std::string::npos) << r.output;
            continue;
        }
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
        EXPECT_NEAR(accuracy(output, labels), trainer_accuracy, 0.005);
    }
}

}  // namespace
}  // namespace cortado::testing
