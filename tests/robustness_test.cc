// Behaviour a deployed network must keep under stress: concurrent contexts give the serial
// results bit for bit, and so do kernels compiled in parallel; -inf through ReLU is 0, not NaN. (Non-finite values through every op:
// tests/non_finite_test.cc.)
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <thread>
#include <tuple>

#include "compiler/host_settings.h"
#include "compiler/loaded_network.h"
#include "compiler/network_builder.h"
#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/shape_inference.h"
#include "tests/network_harness.h"
#include "tests/scoped_knobs.h"
#include "compiler/temporary_directory.h"

namespace cortado::testing {
namespace {

// A compiled network in a private directory, for the suites' target, loaded once; contexts are
// made per use.
class Compiled {
  public:
    explicit Compiled(const std::string &prototxt) {
        Graph graph = import_caffe_prototxt_text(prototxt, "test.prototxt", ImportOptions{});
        infer_shapes(graph);
        fuse_activations(graph);
        built_ = std::make_unique<BuiltNetwork>(
            build_network(graph, "net", resolve_target(test_target()), dir_.path(), BuildOptions(test_plan_options())));
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

// The kernel cache this scope's builds use, and the one before it afterwards.
class ScopedKernelCache {
  public:
    explicit ScopedKernelCache(const std::string &dir) : before_(host_settings()) {
        HostSettings settings = before_;
        settings.kernel_cache_dir = dir;
        set_host_settings(settings);
    }
    ~ScopedKernelCache() { set_host_settings(before_); }
    ScopedKernelCache(const ScopedKernelCache &) = delete;
    ScopedKernelCache &operator=(const ScopedKernelCache &) = delete;

  private:
    HostSettings before_;
};

// Kernels compiled in child processes, two at a time, into an empty cache: a child's failure is
// the build's error, and the network computes what the one compiled serially does, bit for bit.
// Both builds come before any network runs, and this test first in the file: the children are
// forked only where no network's thread pool has run (compiler/child_processes.h).
TEST(Builds, KernelsCompiledInSeveralProcessesGiveTheSerialResults) {
    Graph graph = import_caffe_prototxt_text(kNet, "test.prototxt", ImportOptions{});
    infer_shapes(graph);
    fuse_activations(graph);
    const TargetDescription target = resolve_target(test_target());
    {
        TemporaryDirectory scratch("cortado-jobs-bad");
        const std::string not_a_folder = scratch.path() + "/file";
        std::ofstream(not_a_folder) << "in the cache's way\n";
        const ScopedKernelCache scoped(not_a_folder + "/cache");
        try {
            build_network(graph, "net", target, scratch.path(), BuildOptions(test_plan_options(), 2));
            ADD_FAILURE() << "a cache that cannot be written was accepted";
        } catch (const std::exception &e) {
            EXPECT_NE(std::string(e.what()).find(not_a_folder), std::string::npos) << e.what();
        }
    }
    TemporaryDirectory parallel_cache("cortado-jobs-cache"), serial_cache("cortado-jobs-cache");
    TemporaryDirectory parallel_out("cortado-jobs"), serial_out("cortado-jobs");
    std::vector<std::string> libraries;
    for (const auto &[jobs, cache, out] :
         {std::tuple{2, &parallel_cache, &parallel_out}, std::tuple{1, &serial_cache, &serial_out}}) {
        const ScopedKernelCache scoped(cache->path());
        const BuiltNetwork built =
            build_network(graph, "net", target, out->path(), BuildOptions(test_plan_options(), jobs));
        ASSERT_GE(built.plan.kernels.size(), 4u);
        libraries.push_back(link_shared_library(built, out->path()));
    }
    std::vector<float> input(2 * 3 * 20 * 20);
    std::mt19937 random(5);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &v : input) v = uniform(random);
    std::vector<std::vector<float>> outputs;
    for (const std::string &library : libraries) {
        LoadedNetwork net(library, "net");
        net.create(nullptr, 7);
        outputs.emplace_back(2 * 10, std::nanf(""));
        net.forward(input.data(), outputs.back().data());
    }
    for (size_t i = 0; i < outputs[0].size(); i++) ASSERT_EQ(outputs[0][i], outputs[1][i]) << "output " << i;
}

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

// The rule the reference encodes for every op (tests/non_finite_test.cc), stated once on its own.
TEST(NonFinite, NegativeInfinityThroughReluIsZeroNotNaN) {
    std::vector<float> input(32, 0.5f);
    input[0] = -std::numeric_limits<float>::infinity();
    input[1] = std::numeric_limits<float>::infinity();
    const auto out = run(one_layer("layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n"), input, 32);
    EXPECT_EQ(out[0], 0.0f);
    EXPECT_EQ(out[1], std::numeric_limits<float>::infinity());
}

// Winograd's documented non-finite behaviour, for an Inf in the input: F(2x2), of 3x3 and of 5x5
// kernels, spoils exactly the outputs the direct convolution spoils (though an Inf may come out
// as NaN); F(4x4) spoils every output of the tiles whose input patches hold it, beyond that 3x3
// neighbourhood. Outputs of other tiles stay finite. CPU and GPU families alike (the GPU's
// F(2x2) is a default); F(2x2, 5x5) is the CPU's alone.
TEST(NonFinite, WinogradSpreadsAnInfOverTheTilesThatReadIt) {
    const std::string family = resolve_target(test_target()).schedule_family;
    const bool cpu = family == "x86" || family == "arm" || family == "cpu";
    if (!cpu && family != "gpu") GTEST_SKIP() << test_target() << " has no Winograd variant";
    const std::string prefix = "conv2d.variant=" + std::string(cpu ? "cpu" : "gpu") + "_winograd_";
    const std::string net =
        "input: \"data\"\ninput_shape { dim: 1 dim: 1 dim: 8 dim: 8 }\n"
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 2 "
        "kernel_size: 3 pad: 1 weight_filler { type: \"constant\" value: 0.25 } } }\n";
    std::vector<float> input(64, 0.5f);
    input[2 * 8 + 2] = std::numeric_limits<float>::infinity();  // (x, y) = (2, 2)
    const auto non_finite = [](const std::vector<float> &out) {
        std::vector<bool> spoilt(64);
        for (int i = 0; i < 64; i++) spoilt[i] = !std::isfinite(out[i]);
        return spoilt;
    };
    const std::vector<bool> direct = non_finite(run(net, input, 128));
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++)
            EXPECT_EQ(direct[y * 8 + x], x >= 1 && x <= 3 && y >= 1 && y <= 3) << "direct " << x << "," << y;
    {
        const ScopedKnobs f2((prefix + "f2").c_str());
        EXPECT_EQ(non_finite(run(net, input, 128)), direct) << "F(2x2) spoils what the direct convolution spoils";
    }
    {
        const ScopedKnobs f4((prefix + "f4").c_str());
        const std::vector<bool> spread = non_finite(run(net, input, 128));
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 8; x++)
                EXPECT_EQ(spread[y * 8 + x], x <= 3 && y <= 3)
                    << "F(4x4): the 4x4 tile at the origin, " << x << "," << y;
    }
    if (!cpu) return;
    // F(2x2, 5x5): the 5x5 neighbourhood, at a tile's first pixel and at its second.
    std::string net5 = net;
    net5.replace(net5.find("kernel_size: 3 pad: 1"), 21, "kernel_size: 5 pad: 2");
    for (const int at : {2, 3}) {
        std::vector<float> input5(64, 0.5f);
        input5[at * 8 + at] = std::numeric_limits<float>::infinity();
        const std::vector<bool> direct5 = non_finite(run(net5, input5, 128));
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 8; x++)
                EXPECT_EQ(direct5[y * 8 + x], std::abs(x - at) <= 2 && std::abs(y - at) <= 2)
                    << "direct 5x5 " << x << "," << y;
        const ScopedKnobs f2_5x5("conv2d.variant=cpu_winograd_f2_5x5");
        EXPECT_EQ(non_finite(run(net5, input5, 128)), direct5)
            << "F(2x2, 5x5) spoils what the direct convolution spoils, Inf at " << at << "," << at;
    }
}

}  // namespace
}  // namespace cortado::testing
