// A convolution and the MAX pooling after it as one kernel (ops/conv2d_pool.h): the fusion pass's
// marks, the plan's choice (apart by default, one step where a knob or record names a fused
// variant), every blob against the reference with the family's fused variant forced on the test
// target, and the tuner's view of the pair (its `unfused` choice times both steps).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"
#include "compiler/temporary_directory.h"
#include "compiler/tuner/tune_layers.h"
#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/shape_inference.h"
#include "tests/cli_process.h"
#include "tests/network_harness.h"
#include "tests/scoped_knobs.h"

namespace cortado::testing {
namespace {

std::string conv_layer(const std::string &name, const std::string &bottom, int outputs, const std::string &extra) {
    return "layer { name: \"" + name + "\" type: \"Convolution\" bottom: \"" + bottom + "\" top: \"" + name +
           "\" convolution_param { num_output: " + std::to_string(outputs) +
           " weight_filler { type: \"gaussian\" std: 0.1 } bias_filler { type: \"uniform\" min: -1 max: 1 } " + extra +
           " } }\n";
}

std::string relu(const std::string &blob) {
    return "layer { name: \"relu_" + blob + "\" type: \"ReLU\" bottom: \"" + blob + "\" top: \"" + blob + "\" }\n";
}

std::string pool(const std::string &name, const std::string &bottom, const std::string &param) {
    return "layer { name: \"" + name + "\" type: \"Pooling\" bottom: \"" + bottom + "\" top: \"" + name +
           "\" pooling_param { " + param + " } }\n";
}

std::string network(const Shape &input, const std::string &layers) {
    std::string text = "name: \"conv_pool\"\ninput: \"data\"\ninput_shape {";
    for (int64_t d : input) text += " dim: " + std::to_string(d);
    return text + " }\n" + layers;
}

struct PairCase {
    std::string what, layers;
    Shape input;
};

// Caffe rounds pooled sizes up, so several last windows run past the convolution's edge.
std::vector<PairCase> pair_cases() {
    return {
        {"11x11 stride 4 on colour channels, ReLU, 3x3 stride 2 (AlexNet's conv1)",
         conv_layer("c1", "data", 24, "kernel_size: 11 stride: 4") + relu("c1") +
             pool("p1", "c1", "pool: MAX kernel_size: 3 stride: 2"),
         {2, 3, 59, 59}},
        {"5x5 without an activation, 2x2 stride 2 (LeNet's)",
         conv_layer("c1", "data", 20, "kernel_size: 5") + pool("p1", "c1", "pool: MAX kernel_size: 2 stride: 2"),
         {3, 1, 28, 28}},
        {"3x3 pad 1 in two groups, ReLU, 3x3 stride 2 pad 1 (a stem's), then 10 channels and a window past the edge",
         conv_layer("c1", "data", 16, "kernel_size: 3 pad: 1 group: 2") + relu("c1") +
             pool("p1", "c1", "pool: MAX kernel_size: 3 stride: 2 pad: 1") +
             conv_layer("c2", "p1", 10, "kernel_size: 3 pad: 1") +
             pool("p2", "c2", "pool: MAX kernel_size: 3 stride: 2"),
         {1, 8, 15, 17}},
        {"a 1x1 convolution on a wide map, 2x2 stride 1",
         conv_layer("c1", "data", 7, "kernel_size: 1") + relu("c1") +
             pool("p1", "c1", "pool: MAX kernel_size: 2 stride: 1"),
         {2, 5, 9, 37}},
    };
}

// The fused variant of the test target's family.
std::string fused_variant() {
    const std::string target = resolve_target(test_target()).halide_target;
    if (target.find("hvx") != std::string::npos) return "hvx_conv_pool_rows";
    if (target.find("cuda") != std::string::npos || target.find("opencl") != std::string::npos) return "gpu_conv_pool";
    return "cpu_conv_pool_rows";
}

Graph fused_graph(const std::string &text) {
    Graph g = import_caffe_prototxt_text(text, "conv_pool.prototxt", {});
    infer_shapes(g);
    fuse_layers(g);
    return g;
}

int steps_of_op(const NetworkPlan &plan, const std::string &op) {
    return int(std::count_if(plan.steps.begin(), plan.steps.end(), [&](const PlannedStep &s) {
        return s.kernel >= 0 && plan.kernels[size_t(s.kernel)].op == op;
    }));
}

TEST(ConvPool, FusionMarksAConvolutionThatOnlyAMaxPoolingReads) {
    const Graph marked = fused_graph(network({1, 3, 12, 12}, conv_layer("c", "data", 4, "kernel_size: 3") + relu("c") +
                                                                 pool("p", "c", "pool: MAX kernel_size: 2 stride: 2")));
    ASSERT_EQ(marked.layers.size(), 2u);  // the ReLU fused into the convolution first
    EXPECT_TRUE(std::get<ConvolutionParams>(marked.layers[0].params).pooling_follows);
    // Not AVE, not global pooling, not a convolution whose output something else reads too.
    for (const std::string &after :
         {pool("p", "c", "pool: AVE kernel_size: 2 stride: 2"), pool("p", "c", "pool: MAX global_pooling: true"),
          pool("p", "c", "pool: MAX kernel_size: 2 stride: 2") + conv_layer("d", "c", 2, "kernel_size: 1")}) {
        const Graph g = fused_graph(network({1, 3, 12, 12}, conv_layer("c", "data", 4, "kernel_size: 3") + after));
        EXPECT_FALSE(std::get<ConvolutionParams>(g.layers[0].params).pooling_follows) << after;
    }
}

TEST(ConvPool, ThePairRunsApartUnlessAFusedVariantIsChosen) {
    const std::string text = pair_cases()[0].layers;
    const Graph g = fused_graph(network(pair_cases()[0].input, text));
    const PlanTarget target = resolve_target(test_target()).plan_target();
    const NetworkPlan apart = plan_network(g, "net", target, test_plan_options());
    EXPECT_EQ(steps_of_op(apart, "conv2d_pool"), 0);
    ASSERT_EQ(apart.unfused_pairs.size(), 1u);
    EXPECT_EQ(apart.unfused_pairs[0].choice.choice.variant, "unfused");
    EXPECT_EQ(apart.unfused_pairs[0].pool_step, "p1");
    const auto c1 = std::find_if(apart.tensors.begin(), apart.tensors.end(),
                                 [](const PlannedTensor &t) { return t.blob_name == "c1"; });
    EXPECT_NE(c1, apart.tensors.end()) << "the convolution's own blob is written when the pair runs apart";
    PlanOptions forced = test_plan_options();
    forced.knobs = "conv2d_pool.variant=" + fused_variant();
    const NetworkPlan fused = plan_network(g, "net", target, forced);
    EXPECT_EQ(steps_of_op(fused, "conv2d_pool"), 1);
    EXPECT_EQ(steps_of_op(fused, "pooling"), 0);
    EXPECT_TRUE(fused.unfused_pairs.empty());
    EXPECT_EQ(fused.steps[0].layer, "c1+relu_c1+p1");
}

TEST(ConvPool, FusedPairsMatchTheReference) {
    const std::string variant = fused_variant();
    ScopedPlanOption<std::string> knobs(&PlanOptions::knobs, "conv2d_pool.variant=" + variant);
    const uint64_t seed = test_seed();
    for (const PairCase &c : pair_cases()) {
        const std::string text = network(c.input, c.layers);
        SCOPED_TRACE(c.what + ", seed " + std::to_string(seed) + " on " + test_target());
        const NetworkPlan plan =
            plan_network(fused_graph(text), "net", resolve_target(test_target()).plan_target(), test_plan_options());
        EXPECT_GE(steps_of_op(plan, "conv2d_pool"), 1);
        const BlobCheck check = check_network_text(text, c.what, {}, seed);
        EXPECT_GE(check.blobs_checked, 2);
        EXPECT_EQ(check.all_zero_blobs, 0);
        EXPECT_LE(check.worst_error, check.tolerance) << "worst blob: " << check.worst_blob;
    }
}

// NaN and infinities reach the pooled output as the reference says through the fused kernel:
// its maximum keeps a NaN, and its clamped or masked taps neither add nor hide a value.
TEST(ConvPool, NonFiniteValuesTravelThroughTheFusedKernel) {
    ScopedPlanOption<std::string> knobs(&PlanOptions::knobs, "conv2d_pool.variant=" + fused_variant());
    const TemporaryDirectory dir("cortado-conv-pool-non-finite");
    const uint64_t seed = test_seed();
    for (const size_t i : {size_t(0), size_t(2)}) {
        const PairCase c = pair_cases()[i];
        SCOPED_TRACE(c.what + ", seed " + std::to_string(seed) + " on " + test_target());
        const std::string path = dir.path() + "/net" + std::to_string(i) + ".prototxt";
        std::ofstream(path) << network(c.input, c.layers);
        EXPECT_EQ(check_non_finite_file(path, {}, seed), "");
    }
}

// The tuner measures a pair as a network of its own: its default is `unfused` (the two steps),
// and a fused candidate plans the one kernel.
TEST(ConvPool, TheTunerSeesThePairWithUnfusedAsItsDefault) {
    const Graph g = fused_graph(network(pair_cases()[1].input, pair_cases()[1].layers));
    const PlanTarget target = resolve_target(test_target()).plan_target();
    const NetworkPlan plan = plan_network(g, "net", target, test_plan_options());
    std::vector<std::string> skipped;
    const std::vector<TuneLayer> layers = tune_layers(g, plan, &skipped, &plan);
    const auto pair = std::find_if(layers.begin(), layers.end(),
                                   [](const TuneLayer &l) { return l.default_kernel.op == "conv2d_pool"; });
    ASSERT_NE(pair, layers.end());
    EXPECT_EQ(pair->default_kernel.choice.variant, "unfused");
    ASSERT_EQ(pair->graph.layers.size(), 2u);
    EXPECT_TRUE(pair->timed_step.empty()) << "the whole pair is timed";
    std::string why;
    const auto unfused = resolve_candidate(*pair, target, test_plan_options(), ChoiceSettings{}, &why);
    ASSERT_TRUE(unfused) << why;
    EXPECT_EQ(unfused->choice.variant, "unfused");
    ChoiceSettings fused;
    fused.variant = fused_variant();
    const auto one = resolve_candidate(*pair, target, test_plan_options(), fused, &why);
    ASSERT_TRUE(one) << why;
    EXPECT_EQ(one->choice.variant, fused_variant());
}

// Every family's fused variant compiles, for targets this machine cannot run too (the DSP's and
// the GPUs' code): a pair with a padded stem-like convolution, through the CLI, with the kernel's
// assembly kept (CORTADO_DEBUG_ASM).
TEST(ConvPool, EveryFamilyCompilesItsFusedVariant) {
    const TemporaryDirectory dir("cortado-conv-pool");
    const std::string net = dir.path() + "/net.prototxt";
    std::ofstream(net) << network({1, 8, 20, 20}, pair_cases()[2].layers);
    namespace fs = std::filesystem;
    for (const auto &[target, variant, suffix] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"hexagon-hvx", "hvx_conv_pool_rows", ".hexagon.s"},
             {"cuda-h100", "gpu_conv_pool", ".s"},
             {"opencl-nvidia", "gpu_conv_pool", ".s"},
             {"arm-64-linux", "cpu_conv_pool_rows", ".s"}}) {
        SCOPED_TRACE(target);
        const std::string cache = dir.path() + "/cache-" + target;
        const Result r =
            cortado("compile " + net + " --target " + target + " -o " + dir.path() + "/out-" + target,
                    "CORTADO_CACHE=" + cache + " CORTADO_DEBUG_ASM=1 CORTADO_KNOBS=conv2d_pool.variant=" + variant);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        int fused = 0;
        for (const fs::directory_entry &entry : fs::directory_iterator(cache)) {
            std::ifstream signature(entry.path() / "signature.txt");
            std::string key;
            std::getline(signature, key);
            if (key.rfind("conv2d_pool|", 0) != 0) continue;
            fused++;
            EXPECT_NE(key.find("variant=" + variant), std::string::npos) << key;
            const std::string name = entry.path().filename().string();
            EXPECT_TRUE(fs::exists(entry.path() / (name.substr(0, name.rfind('-')) + suffix))) << entry.path();
        }
        EXPECT_EQ(fused, 2) << "both pairs of the network run fused";
    }
}

}  // namespace
}  // namespace cortado::testing
