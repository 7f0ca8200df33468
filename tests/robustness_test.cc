// Behaviour a deployed network must keep under stress: concurrent contexts give the serial
// results bit for bit, and non-finite values travel through every op instead of vanishing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <thread>

#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/shape_inference.h"
#include "tools/loaded_network.h"
#include "tools/network_builder.h"
#include "tools/temporary_directory.h"

namespace cortado::testing {
namespace {

// A compiled network in a private directory, loaded once; contexts are made per use.
class Compiled {
  public:
    explicit Compiled(const std::string &prototxt) {
        Graph graph = import_caffe_prototxt_text(prototxt, "test.prototxt", ImportOptions{});
        infer_shapes(graph);
        fuse_activations(graph);
        built_ = std::make_unique<BuiltNetwork>(build_network(graph, "net", resolve_target("host"), dir_.path(), false));
        library_ = link_shared_library(*built_, dir_.path());
    }
    std::unique_ptr<LoadedNetwork> context(uint64_t seed) const {
        auto net = std::make_unique<LoadedNetwork>(library_, "net");
        net->create(nullptr, seed);
        return net;
    }

  private:
    TemporaryDirectory dir_{"cortado-robust"};
    std::string library_;
    std::unique_ptr<BuiltNetwork> built_;
};

const char *kNet =
    "input: \"data\"\ninput_shape { dim: 2 dim: 3 dim: 20 dim: 20 }\n"
    "layer { name: \"c1\" type: \"Convolution\" bottom: \"data\" top: \"c1\" convolution_param { num_output: 16 kernel_size: 3 pad: 1 weight_filler { type: \"xavier\" } } }\n"
    "layer { name: \"r1\" type: \"ReLU\" bottom: \"c1\" top: \"c1\" }\n"
    "layer { name: \"p1\" type: \"Pooling\" bottom: \"c1\" top: \"p1\" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
    "layer { name: \"n1\" type: \"LRN\" bottom: \"p1\" top: \"n1\" }\n"
    "layer { name: \"f\" type: \"InnerProduct\" bottom: \"n1\" top: \"f\" inner_product_param { num_output: 10 weight_filler { type: \"xavier\" } } }\n"
    "layer { name: \"s\" type: \"Softmax\" bottom: \"f\" top: \"s\" }\n";

TEST(Concurrency, ContextsOnManyThreadsMatchSerialRunsExactly) {
    const Compiled compiled(kNet);
    constexpr int kThreads = 4, kRuns = 5;
    const size_t in_count = 2 * 3 * 20 * 20, out_count = 2 * 10;
    std::vector<std::vector<float>> inputs(kThreads, std::vector<float>(in_count));
    std::mt19937 random(11);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (auto &input : inputs)
        for (float &v : input) v = uniform(random);

    std::vector<std::vector<float>> serial(kThreads, std::vector<float>(out_count));
    {
        auto net = compiled.context(3);
        for (int t = 0; t < kThreads; t++) net->forward(inputs[t].data(), serial[t].data());
    }
    std::vector<std::vector<float>> parallel(kThreads * kRuns, std::vector<float>(out_count));
    std::vector<std::thread> threads;
    std::vector<std::string> errors(kThreads);
    for (int t = 0; t < kThreads; t++)
        threads.emplace_back([&, t] {
            try {
                auto net = compiled.context(3);
                for (int r = 0; r < kRuns; r++) net->forward(inputs[t].data(), parallel[t * kRuns + r].data());
            } catch (const std::exception &e) {
                errors[t] = e.what();
            }
        });
    for (auto &thread : threads) thread.join();
    for (int t = 0; t < kThreads; t++) {
        EXPECT_EQ(errors[t], "");
        for (int r = 0; r < kRuns; r++) EXPECT_EQ(parallel[t * kRuns + r], serial[t]) << "thread " << t << " run " << r;
    }
}

// Runs a one-input network on `input` and returns its output.
std::vector<float> run(const std::string &prototxt, const std::vector<float> &input, size_t out_count) {
    const Compiled compiled(prototxt);
    auto net = compiled.context(1);
    std::vector<float> output(out_count, 0.0f);
    net->forward(input.data(), output.data());
    return output;
}

int count_nan(const std::vector<float> &v) {
    int n = 0;
    for (float x : v) n += std::isnan(x);
    return n;
}

std::string one_layer(const std::string &layer) {
    return "input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 4 dim: 4 }\n" + layer;
}

TEST(NonFinite, NaNPropagatesThroughEveryOpThatReadsIt) {
    std::vector<float> input(32, 0.5f);
    input[5] = std::numeric_limits<float>::quiet_NaN();  // channel 0, row 1, column 1
    const std::string two_blobs =
        "layer { name: \"a\" type: \"ReLU\" bottom: \"data\" top: \"a\" }\n"
        "layer { name: \"b\" type: \"Scale\" bottom: \"data\" top: \"b\" }\n";
    struct Case {
        const char *what;
        std::string layers;
        size_t out_count;
        int min_nan;
    };
    const Case cases[] = {
        {"ReLU", "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n", 32, 1},
        {"leaky ReLU", "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" relu_param { negative_slope: 0.1 } }\n", 32, 1},
        {"MAX pooling", "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { pool: MAX kernel_size: 2 stride: 1 } }\n", 18, 4},
        {"AVE pooling", "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { pool: AVE kernel_size: 2 stride: 2 } }\n", 8, 1},
        {"Eltwise MAX", two_blobs + "layer { name: \"e\" type: \"Eltwise\" bottom: \"a\" bottom: \"b\" top: \"e\" eltwise_param { operation: MAX } }\n", 32, 1},
        {"Convolution + ReLU", "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 3 kernel_size: 3 weight_filler { type: \"gaussian\" } } }\n"
                              "layer { name: \"r\" type: \"ReLU\" bottom: \"c\" top: \"c\" }\n", 12, 12},
        {"LRN", "layer { name: \"n\" type: \"LRN\" bottom: \"data\" top: \"n\" lrn_param { local_size: 3 } }\n", 32, 2},
        {"InnerProduct + Softmax", "layer { name: \"f\" type: \"InnerProduct\" bottom: \"data\" top: \"f\" inner_product_param { num_output: 5 weight_filler { type: \"gaussian\" } } }\n"
                                   "layer { name: \"s\" type: \"Softmax\" bottom: \"f\" top: \"s\" }\n", 5, 5},
    };
    for (const Case &c : cases)
        EXPECT_GE(count_nan(run(one_layer(c.layers), input, c.out_count)), c.min_nan) << c.what;
}

TEST(NonFinite, NegativeInfinityThroughReluIsZeroNotNaN) {
    std::vector<float> input(32, 0.5f);
    input[0] = -std::numeric_limits<float>::infinity();
    input[1] = std::numeric_limits<float>::infinity();
    const auto out = run(one_layer("layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n"), input, 32);
    EXPECT_EQ(out[0], 0.0f);
    EXPECT_EQ(out[1], std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace cortado::testing
