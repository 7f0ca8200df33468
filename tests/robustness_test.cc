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
#include "frontend/untrained_fillers.h"
#include "tests/network_harness.h"
#include "tests/reference/reference_interpreter.h"
#include "tools/loaded_network.h"
#include "tools/network_builder.h"
#include "tools/network_weights.h"
#include "tools/temporary_directory.h"

namespace cortado::testing {
namespace {

// A compiled network in a private directory for the suites' target, loaded once; contexts are
// made per use.
class Compiled {
  public:
    explicit Compiled(const std::string &prototxt) {
        unfused_ = import_caffe_prototxt_text(prototxt, "test.prototxt", ImportOptions{});
        infer_shapes(unfused_);
        fill_untrained_weights(unfused_);
        Graph fused = unfused_;
        fuse_activations(fused);
        built_ = std::make_unique<BuiltNetwork>(build_network(fused, "net", resolve_target(test_target()), dir_.path(), false));
        library_ = link_shared_library(*built_, dir_.path());
    }
    std::unique_ptr<LoadedNetwork> context(uint64_t seed) const {
        auto net = std::make_unique<LoadedNetwork>(library_, "net");
        net->create(nullptr, seed);
        return net;
    }
    size_t input_count() const { return element_count(unfused_.values[unfused_.inputs[0]].shape); }
    size_t output_count() const { return element_count(unfused_.values[unfused_.outputs[0]].shape); }
    // The double-precision reference's output for the weights of context(seed).
    std::vector<double> expected(const std::vector<float> &input, uint64_t seed) const {
        const Shape &shape = unfused_.values[unfused_.inputs[0]].shape;
        const auto blobs = reference::run_graph(unfused_, reference_weights(seeded_weights(built_->plan, seed)),
                                                {reference::Tensor{shape, {input.begin(), input.end()}}});
        return blobs[unfused_.outputs[0]].data;
    }

  private:
    TemporaryDirectory dir_{"cortado-robust"};
    Graph unfused_;
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

std::string one_layer(const std::string &layer) {
    return "input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 4 dim: 4 }\n" + layer;
}

// "" when `actual` holds a NaN exactly where the reference does, the same infinity where it
// holds one, and finite values elsewhere whose relative L2 error is within `tolerance`;
// otherwise what differs, with the first few elements.
std::string compare_non_finite(const std::vector<float> &actual, const std::vector<double> &expected, double tolerance) {
    auto describe = [](double v) {
        return std::isnan(v) ? std::string("NaN") : std::isinf(v) ? (v > 0 ? "+inf" : "-inf") : std::to_string(v);
    };
    std::string report;
    int wrong_class = 0;
    double diff_squared = 0.0, expected_squared = 0.0;
    for (size_t i = 0; i < expected.size(); i++) {
        const double a = actual[i], e = expected[i];
        const bool same_class = std::isnan(e) ? std::isnan(a) : std::isinf(e) ? a == e : std::isfinite(a);
        if (!same_class) {
            if (wrong_class++ < 5)
                report += "  element " + std::to_string(i) + ": " + describe(a) + ", reference " + describe(e) + "\n";
            continue;
        }
        if (std::isfinite(e)) {
            diff_squared += (a - e) * (a - e);
            expected_squared += e * e;
        }
    }
    if (wrong_class > 0)
        report = std::to_string(wrong_class) + " of " + std::to_string(expected.size()) +
                 " elements differ in kind from the reference:\n" + report;
    if (diff_squared > tolerance * tolerance * expected_squared)
        report += "finite elements: relative L2 error " + std::to_string(std::sqrt(diff_squared / expected_squared)) + "\n";
    return report;
}

// Every op, on an input with NaN and infinities among uniform(-1, 1) values, gives the
// double-precision reference's kind of value (NaN, +inf, -inf or finite) in every element. One
// shape is wide enough for full vectors and odd enough for their tails on every ISA; the other
// is narrower than one vector.
TEST(NonFinite, EveryOpGivesTheReferencesNonFiniteValuesElementByElement) {
    const std::string conv = "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 6 kernel_size: 3 pad: 1 weight_filler { type: \"gaussian\" std: 0.3 } bias_filler { type: \"uniform\" min: -1 max: 1 } } }\n";
    const std::string ip = "layer { name: \"f\" type: \"InnerProduct\" bottom: \"data\" top: \"f\" inner_product_param { num_output: 21 weight_filler { type: \"gaussian\" std: 0.1 } bias_filler { type: \"uniform\" min: -1 max: 1 } } }\n";
    const std::string scaled = "layer { name: \"s\" type: \"Scale\" bottom: \"data\" top: \"s\" scale_param { bias_term: true filler { type: \"uniform\" min: -2 max: 2 } bias_filler { type: \"uniform\" min: -1 max: 1 } } }\n";
    auto eltwise = [&](const std::string &params) {
        return scaled + "layer { name: \"e\" type: \"Eltwise\" bottom: \"data\" bottom: \"s\" top: \"e\" eltwise_param { " + params + " } }\n";
    };
    const std::pair<const char *, std::string> cases[] = {
        {"ReLU", "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n"},
        {"leaky ReLU", "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" relu_param { negative_slope: 0.1 } }\n"},
        {"MAX pooling", "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 } }\n"},
        {"AVE pooling", "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 } }\n"},
        {"global AVE pooling", "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { pool: AVE global_pooling: true } }\n"},
        {"LRN across channels", "layer { name: \"n\" type: \"LRN\" bottom: \"data\" top: \"n\" lrn_param { local_size: 5 alpha: 0.5 beta: 0.75 } }\n"},
        {"LRN within a channel", "layer { name: \"n\" type: \"LRN\" bottom: \"data\" top: \"n\" lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 norm_region: WITHIN_CHANNEL } }\n"},
        {"Convolution", conv},
        {"Convolution + ReLU", conv + "layer { name: \"r\" type: \"ReLU\" bottom: \"c\" top: \"c\" }\n"},
        {"Convolution + leaky ReLU", conv + "layer { name: \"r\" type: \"ReLU\" bottom: \"c\" top: \"c\" relu_param { negative_slope: 0.2 } }\n"},
        {"grouped 1x1 Convolution", "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 kernel_size: 1 group: 2 weight_filler { type: \"gaussian\" } } }\n"},
        {"InnerProduct + ReLU", ip + "layer { name: \"r\" type: \"ReLU\" bottom: \"f\" top: \"f\" }\n"},
        {"InnerProduct + Softmax", ip + "layer { name: \"p\" type: \"Softmax\" bottom: \"f\" top: \"p\" }\n"},
        {"Softmax over channels", "layer { name: \"p\" type: \"Softmax\" bottom: \"data\" top: \"p\" }\n"},
        {"BatchNorm", "layer { name: \"b\" type: \"BatchNorm\" bottom: \"data\" top: \"b\" }\n"},
        {"Scale with bias", scaled},
        {"Eltwise SUM with coefficients, one of them 0", eltwise("operation: SUM coeff: 0 coeff: -1.5")},
        {"Eltwise PROD", eltwise("operation: PROD")},
        {"Eltwise MAX", eltwise("operation: MAX")},
        {"Concat", scaled + "layer { name: \"k\" type: \"Concat\" bottom: \"s\" bottom: \"data\" top: \"k\" }\n"},
    };
    constexpr float kNaN = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();
    const std::vector<std::vector<float>> injections = {{kNaN}, {kInf}, {-kInf}, {kNaN, kInf, -kInf, kInf, -kInf}};
    const uint64_t seed = test_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", target " + test_target());
    std::mt19937_64 random(seed);
    for (const char *shape : {"dim: 2 dim: 8 dim: 9 dim: 19", "dim: 1 dim: 2 dim: 4 dim: 4"})
    for (const auto &[what, layers] : cases) {
        const Compiled compiled("input: \"data\"\ninput_shape { " + std::string(shape) + " }\n" + layers);
        auto net = compiled.context(seed);
        for (const std::vector<float> &specials : injections) {
            std::vector<float> in(compiled.input_count());
            std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
            for (float &v : in) v = uniform(random);
            std::uniform_int_distribution<size_t> position(0, in.size() - 1);
            std::string placed;
            for (float special : specials) {
                const size_t at = position(random);
                in[at] = special;
                placed += " " + std::to_string(special) + "@" + std::to_string(at);
            }
            std::vector<float> out(compiled.output_count(), 0.0f);
            net->forward(in.data(), out.data());
            EXPECT_EQ(compare_non_finite(out, compiled.expected(in, seed), 1e-5), "")
                << what << ", input " << shape << " with" << placed;
        }
    }
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
