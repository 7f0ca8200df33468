// The trained digits network (models/digits, from tools/train_digits.py) through both
// frontends, the prototxt with its caffemodel and the ONNX export: on the test target, its
// predictions on the held-out images equal the trainer's, except where the trainer's top-2
// margin is below 1e-5, and its accuracy equals the trainer's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli_process.h"
#include "tests/network_harness.h"
#include "tests/peer_outputs.h"
#include "compiler/temporary_directory.h"

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

}  // namespace
}  // namespace cortado::testing
