// Typed kernel choices: the descriptor codec, the registry's knob spaces, the precedence of the
// four sources, the tuning database, and the schedule family in both signatures.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <tuple>
#include <type_traits>

#include "compiler/kernel_choice.h"
#include "compiler/kernel_plan.h"
#include "compiler/record_transfer.h"
#include "compiler/schedule_version.h"
#include "compiler/target_description.h"
#include "compiler/tuning_db.h"
#include "frontend/compile_error.h"
#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/shape_inference.h"
#include "generators/concat.h"
#include "generators/conv2d.h"
#include "generators/conv2d_channel_lanes.h"
#include "generators/conv2d_fp16.h"
#include "generators/conv2d_int8.h"
#include "generators/conv2d_pool.h"
#include "generators/conv2d_winograd.h"
#include "generators/deconv2d.h"
#include "generators/elementwise.h"
#include "generators/gemm.h"
#include "generators/inner_product.h"
#include "generators/lrn.h"
#include "generators/pad.h"
#include "generators/pooling.h"
#include "generators/rearrange.h"
#include "generators/resize.h"
#include "generators/schedule_registry.h"
#include "generators/softmax.h"
#include "ops/concat.h"
#include "ops/conv2d.h"
#include "ops/elementwise.h"
#include "ops/gemm.h"
#include "schedules/cpu/conv2d_depthwise_space.h"
#include "schedules/families.h"
#include "schedules/gpu/conv2d_staged_tile.h"
#include "tests/scoped_knobs.h"

namespace cortado::testing {
namespace {

const char *kCuda = "x86-64-linux-cuda";
const char *kAvx2 = "x86-64-linux-avx-avx2-f16c-fma-sse41";
// Halide's host string on the Zen 4 VM: one 512-bit FMA a cycle (tune_znver4).
const char *kZen4 =
    "x86-64-linux-tune_znver4-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-avx512_zen4-f16c-fma-sse41";

// The scope's plan options (ScopedKnobs, ScopedLayouts) with these tuning records.
PlanOptions with_records(const ChoiceOverrides &records) {
    PlanOptions options = test_plan_options();
    options.records = records;
    return options;
}

Graph conv_graph(int group = 1, int size = 14) {
    Graph graph = import_caffe_prototxt_text(
        "input: \"data\"\ninput_shape { dim: 1 dim: 32 dim: " + std::to_string(size) + " dim: " + std::to_string(size) +
            " }\n"
            "layer { name: \"c1\" type: \"Convolution\" bottom: \"data\" top: \"c1\" convolution_param { num_output: 32 kernel_size: 3 pad: 1 group: " +
            std::to_string(group) +
            " } }\n"
            "layer { name: \"c2\" type: \"Convolution\" bottom: \"c1\" top: \"c2\" convolution_param { num_output: 32 kernel_size: 3 pad: 1 group: " +
            std::to_string(group) + " } }\n",
        "choices.prototxt", ImportOptions{});
    infer_shapes(graph);
    return graph;
}

std::string plan_error(const Graph &graph, const PlanTarget &target, const ChoiceOverrides &records = {}) {
    try {
        plan_network(graph, "net", target, with_records(records));
    } catch (const CompileError &e) {
        return e.what();
    }
    return "no error";
}

// A tuning record for a conv2d op signature.
ChoiceSettings record(const std::string &source, const std::string &variant,
                      std::vector<std::pair<std::string, int>> knobs) {
    ChoiceSettings s;
    s.source = source, s.variant = variant, s.knobs = std::move(knobs), s.op = "conv2d", s.exact = true;
    return s;
}

// The choice the target family's rules make for `shape`, with `knobs` (and `variant`, if
// named) pinned by a source called "test".
template <typename Shape>
ops::Choice choose_on(const schedules::TargetInfo &target, const Shape &shape,
                      std::vector<std::pair<std::string, int>> knobs = {}, const std::string &variant = "") {
    ChoiceSettings s;
    s.source = "test", s.variant = variant, s.knobs = std::move(knobs);
    return resolve_choice(schedules::families().at(target.family).op<Shape>(), shape, target, {&s}).choice;
}

std::string knob_source(const KernelInstance &k, const std::string &name) {
    for (const auto &[knob, source] : k.knob_sources)
        if (knob == name) return source;
    return "absent";
}

TEST(Descriptors, TextRoundTripsEveryFieldType) {
    ops::Conv2dOp conv;
    conv.shape.in_channels = 96, conv.shape.kernel_h = 11, conv.shape.group = 2;
    conv.choice.variant = "gpu_register_tile";
    conv.choice.knobs.set("rows", 8);
    conv.choice.knobs.set("channels", 4);
    conv.choice.epilogue.bias = true, conv.choice.epilogue.relu = true, conv.choice.epilogue.relu_slope = 0.1f;
    const std::string text = ops::descriptor_text(conv);
    const auto back = ops::parse_descriptor<ops::Conv2dOp>(text);
    EXPECT_EQ(ops::descriptor_text(back), text);
    EXPECT_EQ(back.shape.kernel_h, 11);
    EXPECT_EQ(back.choice.knobs.get("channels"), 4);
    EXPECT_EQ(back.choice.epilogue.relu_slope, 0.1f);  // 9 digits read back the same float
    for (const ops::Form form :
         {ops::Form::direct(), ops::Form::channel_lanes(), ops::Form::winograd(4, 3), ops::Form::winograd(2, 5),
          ops::Form::conv_gemm(ops::ConvGemmForm::FullyConnected), ops::Form::conv_gemm(ops::ConvGemmForm::PixelLanes),
          ops::Form::conv_gemm(ops::ConvGemmForm::ChannelLanes)}) {
        conv.choice.form = form;
        EXPECT_TRUE(ops::parse_descriptor<ops::Conv2dOp>(ops::descriptor_text(conv)).choice.form == form)
            << ops::field_value(form);
    }
    for (const char *bad : {"winograd", "winograd_f4x", "winograd_f0x3", "gemm", "lanes"}) {
        ops::Form form;
        EXPECT_THROW(ops::parse_field(bad, form), std::invalid_argument) << bad;
    }

    ops::EltwiseOp eltwise;
    eltwise.shape.operation = ops::EltwiseOperation::Max;
    eltwise.shape.coefficients = {1.0f, -0.333333343f};
    const auto eltwise_back = ops::parse_descriptor<ops::EltwiseOp>(ops::descriptor_text(eltwise));
    EXPECT_EQ(eltwise_back.shape.operation, ops::EltwiseOperation::Max);
    EXPECT_EQ(eltwise_back.shape.coefficients, eltwise.shape.coefficients);
    ops::ConcatOp concat;
    concat.shape.channels = {64, 128, 32};
    EXPECT_EQ(ops::parse_descriptor<ops::ConcatOp>(ops::descriptor_text(concat)).shape.channels, concat.shape.channels);

    // A descriptor missing a field, with an unknown one, or with a bad value is refused.
    EXPECT_THROW(ops::parse_fields<ops::ConcatShape>("inner=1;outer=1"), std::invalid_argument);
    EXPECT_THROW(ops::parse_fields<ops::ConcatShape>("inner=1;outer=1;channels=2;extra=3"), std::invalid_argument);
    EXPECT_THROW(ops::parse_fields<ops::ConcatShape>("inner=x;outer=1;channels=2"), std::invalid_argument);
}

// Every variant of every op in every family, chosen on a small shape at every vector width a
// description may give: its default rule fills in every knob inside its declared range
// (resolve_choice checks both), and the variant's tolerance is a relative error.
TEST(Registry, EveryVariantsDefaultKnobsLieInTheirDomains) {
    int variants = 0;
    for (const auto &[name, family] : schedules::families()) {
        for (const int bits : {128, 256, 512, 1024, 2048}) {
            const schedules::TargetInfo info{name == "gpu" ? kCuda : kAvx2, name, bits, name == "gpu" ? 128 : 0};
            family.for_each_op([&, name = name](const char *op, const auto &space) {
                using Shape = typename std::decay_t<decltype(space)>::ShapeType;
                std::vector<Shape> shapes{Shape{}};
                if constexpr (std::is_same_v<Shape, ops::Conv2dShape>)
                    shapes = {ops::Conv2dShape{1, 32, 14, 14, 32, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                              ops::Conv2dShape{2, 32, 6, 6, 64, 1, 1, 6, 6, 1, 1, 0, 0, 1, 1, 1},
                              ops::Conv2dShape{1, 32, 14, 14, 16, 14, 14, 1, 1, 1, 1, 0, 0, 1, 1, 1},
                              ops::Conv2dShape{1, 32, 14, 14, 32, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 32},
                              ops::Conv2dShape{1, 16, 14, 14, 32, 14, 14, 5, 5, 1, 1, 2, 2, 1, 1, 1}};
                // A family may leave the gemm op out (the GPU and HVX families do): no Caffe or ONNX
                // layer plans one; `bench sgemm` does, on the CPU families. HVX has no half
                // arithmetic: a plan that asks for an fp16 convolution fails naming the layer.
                const bool cpu_family = name == "cpu" || name == "x86" || name == "arm";
                if (space.variants.empty() && std::string(op) == "gemm" && !cpu_family) return;
                if (space.variants.empty() && std::string(op) == "conv2d_fp16" && name == "hvx") return;
                ASSERT_FALSE(space.variants.empty()) << name << " " << op;
                for (const auto &v : space.variants) {
                    // The first shape the variant computes.
                    Shape shape = shapes.front();
                    for (const Shape &s : shapes)
                        if (!v.unsupported || v.unsupported(s).empty()) {
                            shape = s;
                            break;
                        }
                    // Names travel inside descriptor text, where ; | , : and = separate fields.
                    EXPECT_TRUE(std::regex_match(v.name, std::regex("[a-z0-9_]+"))) << v.name;
                    for (const auto &k : v.knobs)
                        EXPECT_TRUE(std::regex_match(k.name, std::regex("[a-z0-9_]+"))) << k.name;
                    ChoiceSettings pick;
                    pick.source = "test";
                    pick.variant = v.name;
                    try {
                        const ResolvedChoice r = resolve_choice(space, shape, info, {&pick});
                        EXPECT_EQ(r.choice.knobs.values.size(), v.knobs.size()) << name << " " << v.name;
                        EXPECT_GT(r.choice.tolerance, 0.0f);
                        EXPECT_LT(r.choice.tolerance, 0.1f);
                        variants++;
                    } catch (const CompileError &e) {
                        ADD_FAILURE() << name << " " << op << " " << v.name << " at " << bits << " bits: " << e.what();
                    }
                }
            });
        }
    }
    EXPECT_GE(variants, 5 * 5 * 9);
}

// Winograd by default (schedules/cpu/conv2d_space.h, winograd_default): F(4x4) on large maps,
// on small ones F(4x4) or F(2x2) by their estimated cost, the direct convolution where the layer is too shallow, the map too small
// or one image's transformed input too large; a batch whose transforms pass the limit is
// transformed a chunk of images at a time (winograd_batch_chunk).
TEST(ConvRules, WinogradWhereItPays) {
    const schedules::TargetInfo avx512{"x86-64-linux-avx-avx2-avx512-f16c-fma-sse41", "x86", 512, 0};
    const auto choice = [&](const ops::Conv2dShape &s) {
        return resolve_choice(schedules::families().at("x86").op<ops::Conv2dShape>(), s, avx512, {}).choice;
    };
    const auto variant = [&](const ops::Conv2dShape &s) { return choice(s).variant; };
    const auto chunk = [&](const ops::Conv2dShape &s) { return choice(s).knobs.get("batch_chunk"); };
    const auto conv3x3 = [](int batch, int in, int out, int map, int group = 1) {
        return ops::Conv2dShape{batch, in, map, map, out, map, map, 3, 3, 1, 1, 1, 1, 1, 1, group};
    };
    EXPECT_EQ(variant(conv3x3(1, 64, 64, 56)), "cpu_winograd_f4") << "ResNet layer1";
    EXPECT_EQ(variant(conv3x3(20, 64, 64, 56)), "cpu_winograd_f4") << "36 MiB transformed, deep";
    EXPECT_EQ(chunk(conv3x3(20, 64, 64, 56)), 0) << "the whole batch within the deep limit";
    EXPECT_EQ(variant(conv3x3(5, 128, 128, 28)), "cpu_winograd_f4");
    // Below kWinogradF4MinMap, by winograd_cost and the transformed weights' size.
    EXPECT_EQ(variant(conv3x3(5, 256, 256, 14)), "cpu_winograd_f4") << "F(4x4) at 0.82 of F(2x2)'s cost";
    EXPECT_EQ(variant(conv3x3(20, 160, 320, 7)), "cpu_winograd_f4") << "0.67";
    EXPECT_EQ(variant(conv3x3(20, 256, 256, 10)), "cpu_winograd_f2") << "0.92: the edge tiles";
    EXPECT_EQ(variant(conv3x3(20, 64, 64, 14)), "cpu_winograd_f2") << "1.11: the transforms";
    EXPECT_EQ(variant(conv3x3(20, 512, 512, 7)), "cpu_winograd_f2") << "36 MiB of F(4x4) weights, past half L3";
    EXPECT_EQ(variant(conv3x3(1, 384, 384, 13)), "cpu_winograd_f2") << "20 MiB";
    EXPECT_EQ(variant(conv3x3(20, 384, 384, 13, 2)), "cpu_winograd_f4") << "192 channels per group, 10 MiB";
    EXPECT_EQ(variant(conv3x3(1, 512, 512, 5)), "cpu_direct_channel_lanes") << "a map below kWinogradMinMap";
    EXPECT_EQ(variant(conv3x3(1, 128, 32, 56)), "cpu_winograd_f4") << "DenseNet at batch 1: 3.4 MiB transformed";
    EXPECT_EQ(variant(conv3x3(5, 128, 32, 28)), "cpu_winograd_f4") << "4.3 MiB";
    EXPECT_EQ(chunk(conv3x3(5, 128, 32, 28)), 0);
    EXPECT_EQ(variant(conv3x3(20, 128, 32, 28)), "cpu_winograd_f4") << "17 MiB, 0.86 MiB an image";
    EXPECT_EQ(chunk(conv3x3(20, 128, 32, 28)), 9) << "9 images within the 8 MiB of a layer that is not deep";
    EXPECT_EQ(variant(conv3x3(5, 128, 32, 56)), "cpu_winograd_f4") << "32 outputs: not deep, 17 MiB";
    EXPECT_EQ(chunk(conv3x3(5, 128, 32, 56)), 2) << "3.4 MiB an image";
    EXPECT_EQ(variant(conv3x3(1, 128, 32, 14)), "cpu_direct_channel_lanes") << "F(2x2) only on deep layers";
    EXPECT_EQ(variant(conv3x3(20, 16, 64, 55)), "cpu_winograd_f4") << "16 inputs, 8.6 MiB transformed";
    EXPECT_EQ(chunk(conv3x3(20, 16, 64, 55)), 18);
    EXPECT_EQ(variant(conv3x3(1, 16, 64, 55)), "cpu_winograd_f4");
    EXPECT_EQ(variant(conv3x3(1, 8, 64, 56)), "cpu_register_tile") << "8 inputs: the transforms cost more";
    EXPECT_EQ(variant(conv3x3(20, 64, 64, 224)), "cpu_winograd_f4") << "VGG at batch 20: 551 MiB, 28 an image";
    EXPECT_EQ(chunk(conv3x3(20, 64, 64, 224)), 1);
    EXPECT_EQ(variant(conv3x3(1, 32, 32, 224)), "cpu_direct_channel_lanes") << "not deep, 14 MiB for one image";
    EXPECT_EQ(variant(ops::Conv2dShape{1, 64, 56, 56, 64, 28, 28, 3, 3, 2, 2, 1, 1, 1, 1, 1}),
              "cpu_direct_channel_lanes")
        << "stride 2";
    const schedules::TargetInfo strict{"x86-64-linux-avx-avx2-avx512-f16c-fma-sse41-strict_float", "x86", 512, 0};
    EXPECT_EQ(resolve_choice(schedules::families().at("x86").op<ops::Conv2dShape>(), conv3x3(1, 64, 64, 56), strict, {})
                  .choice.variant,
              "cpu_direct_channel_lanes")
        << "strict_float keeps IEEE semantics";
}

// The channel-lanes depthwise tile (schedules/cpu/conv2d_depthwise_space.h): four pixels where
// four divide a row, else three, on every CPU width; a record's rows still win.
TEST(ConvRules, DepthwiseTilesOfFewPixels) {
    const schedules::TargetInfo avx2{"x86-64-linux-avx-avx2-f16c-fma-sse41", "x86", 256, 0};
    const schedules::TargetInfo avx512{"x86-64-linux-avx-avx2-avx512-f16c-fma-sse41", "x86", 512, 0};
    const auto depthwise = [](int channels, int map, int stride) {
        const int out = (map + 2 - 3) / stride + 1;
        return ops::Conv2dShape{20, channels, map, map, channels, out, out, 3, 3, stride, stride, 1, 1, 1, 1, channels};
    };
    ChoiceSettings lanes;
    lanes.source = "test";
    lanes.variant = schedules::cpu::kDepthwiseChannelLanes;
    for (const schedules::TargetInfo &t : {avx2, avx512}) {
        const auto rows = [&](const ops::Conv2dShape &s, std::vector<const ChoiceSettings *> settings) {
            return resolve_choice(schedules::families().at("x86").op<ops::Conv2dShape>(), s, t, settings)
                .choice.knobs.get("rows");
        };
        EXPECT_EQ(rows(depthwise(32, 112, 1), {&lanes}), 4) << t.halide_target;
        EXPECT_EQ(rows(depthwise(96, 112, 2), {&lanes}), 4) << "56 outputs a row";
        EXPECT_EQ(rows(depthwise(192, 28, 1), {&lanes}), 4);
        EXPECT_EQ(rows(depthwise(576, 14, 1), {&lanes}), 3);
        EXPECT_EQ(rows(depthwise(960, 7, 1), {&lanes}), 3);
        EXPECT_EQ(rows(depthwise(16, 1, 1), {&lanes}), 1) << "one pixel";
        ChoiceSettings recorded = lanes;
        recorded.knobs.push_back({"rows", 8});
        EXPECT_EQ(rows(depthwise(32, 112, 1), {&recorded}), 8);
    }
}

// The GEMM default rules on AVX-512 (32 registers, 16 lanes): which layers become GEMMs, and
// register tiles that waste no rows or columns where a tile size divides the product.
TEST(GemmRules, LayersRouteToTheGemmByShapeAndTilesFitTheProduct) {
    const schedules::TargetInfo avx512{"x86-64-linux-avx-avx2-avx512-f16c-fma-sse41", "x86", 512, 0};
    const schedules::FamilySpace &x86 = schedules::families().at("x86");
    const auto choose = [&](const auto &shape) {
        using Shape = std::decay_t<decltype(shape)>;
        return resolve_choice(x86.op<Shape>(), shape, avx512, {}).choice;
    };
    EXPECT_EQ(choose(ops::InnerProductShape{1, 9216, 4096}).variant, "cpu_lane_partials") << "batch 1 stays a GEMV";
    const ops::Choice fc6 = choose(ops::InnerProductShape{20, 9216, 4096});
    EXPECT_EQ(fc6.variant, "cpu_gemm");
    EXPECT_EQ(fc6.weights, ops::WeightPacking::ColumnPanels);
    EXPECT_EQ(fc6.knobs.get("cols"), 48) << "4096 columns: the 8 x 3-vector tile";
    EXPECT_EQ(fc6.knobs.get("rows"), 5) << "20 rows: tiles of 5, not 8 (24 rows)";
    EXPECT_EQ(ops::panel_width(fc6), 48);
    const ops::Choice narrow = choose(ops::InnerProductShape{20, 4096, 64});
    EXPECT_EQ(narrow.knobs.get("cols"), 32) << "64 columns: 2 vectors waste none, 3 would waste 32";
    EXPECT_EQ(narrow.knobs.get("rows"), 10) << "12 rows of 2 vectors, fitted to 20 rows";
    // Convolutions: kernel over the whole input; 1x1 on a large map; 1x1 on a small one; 3x3.
    EXPECT_EQ(choose(ops::Conv2dShape{5, 256, 6, 6, 4096, 1, 1, 6, 6, 1, 1, 0, 0, 1, 1, 1}).variant,
              "cpu_gemm_fully_connected");
    const ops::Choice pixels = choose(ops::Conv2dShape{1, 64, 56, 56, 64, 56, 56, 1, 1, 1, 1, 0, 0, 1, 1, 1});
    EXPECT_EQ(pixels.variant, "cpu_gemm_1x1");
    EXPECT_EQ(pixels.weights, ops::WeightPacking::RowPanels);
    EXPECT_EQ(ops::panel_width(pixels), pixels.knobs.get("rows"));
    EXPECT_EQ(choose(ops::Conv2dShape{1, 832, 7, 7, 384, 7, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1}).variant,
              "cpu_gemm_1x1_channel_lanes");
    // The channel-lanes convolution's tile, on a 3x3 layer that Winograd would otherwise take.
    const ChoiceSettings forced{"test", "cpu_direct_channel_lanes", {}, "", false};
    const auto channel_lanes = [&](const ops::Conv2dShape &shape, const schedules::TargetInfo &target) {
        return resolve_choice(x86.op<ops::Conv2dShape>(), shape, target, {&forced}).choice;
    };
    const ops::Choice direct =
        channel_lanes(ops::Conv2dShape{1, 64, 56, 56, 64, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1}, avx512);
    EXPECT_EQ(direct.variant, "cpu_direct_channel_lanes");
    EXPECT_EQ(direct.weights, ops::WeightPacking::ColumnPanels);
    EXPECT_EQ(direct.knobs.get("cols"), 64) << "4 vectors of channels, the widest full tile";
    EXPECT_EQ(direct.knobs.get("rows"), 6) << "6 pixels x 4 vectors: 24 accumulators";
    const ops::Choice conv1 = choose(ops::Conv2dShape{1, 3, 227, 227, 96, 55, 55, 11, 11, 4, 4, 0, 0, 1, 1, 1});
    EXPECT_EQ(conv1.knobs.get("cols"), 48) << "96 channels: 2 panels of 3 vectors waste none";
    EXPECT_EQ(conv1.knobs.get("rows"), 8);
    const ops::Conv2dShape conv3{20, 256, 13, 13, 384, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_EQ(channel_lanes(conv3, avx512).knobs.get("cols"), 64);
    const schedules::TargetInfo sapphire_rapids{
        "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41", "x86",
        512, 0};
    const ops::Choice two_pipes = channel_lanes(conv3, sapphire_rapids);
    EXPECT_EQ(two_pipes.knobs.get("cols"), 48) << "two FMA pipes: 3 vectors by 9 pixels, 27 accumulators";
    EXPECT_EQ(two_pipes.knobs.get("rows"), 9);
    EXPECT_EQ(channel_lanes(ops::Conv2dShape{20, 384, 13, 13, 256, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 2}, sapphire_rapids)
                  .knobs.get("cols"),
              64)
        << "128 channels per group hold no panel of 3 vectors: 4 by 6 as elsewhere";
    const ops::Choice grouped = choose(ops::Conv2dShape{1, 96, 27, 27, 256, 27, 27, 5, 5, 1, 1, 2, 2, 1, 1, 2});
    EXPECT_EQ(grouped.variant, "cpu_direct_channel_lanes");
    EXPECT_EQ(128 % grouped.knobs.get("cols"), 0) << "a panel within one group of 128";
    const ops::Choice batch1 =
        channel_lanes(ops::Conv2dShape{1, 256, 13, 13, 384, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1}, avx512);
    const int tiles = (169 + batch1.knobs.get("rows") - 1) / batch1.knobs.get("rows");
    EXPECT_GE(384 / batch1.knobs.get("cols") *
                  ((tiles + batch1.knobs.get("task_tiles") - 1) / batch1.knobs.get("task_tiles")),
              16)
        << "batch 1 still gives both cores many tasks";
    EXPECT_EQ(choose(ops::Conv2dShape{1, 48, 13, 13, 48, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 2}).variant,
              "cpu_register_tile")
        << "24 channels per group: no whole 16-float vector fits a group";
    EXPECT_EQ(choose(ops::Conv2dShape{1, 3, 32, 32, 32, 32, 32, 5, 5, 1, 1, 2, 2, 1, 1, 1}).variant,
              "cpu_register_tile")
        << "CIFAR-10 conv1: a reduction of 75, shallower than kCpuChannelLanesMinDepth";
    EXPECT_EQ(choose(ops::Conv2dShape{1, 3, 224, 224, 64, 112, 112, 7, 7, 2, 2, 3, 3, 1, 1, 1}).variant,
              "cpu_register_tile")
        << "GoogLeNet conv1: a reduction of 147";
    EXPECT_EQ(choose(ops::Conv2dShape{1, 8, 32, 32, 32, 32, 32, 5, 5, 1, 1, 2, 2, 1, 1, 1}).variant,
              "cpu_direct_channel_lanes")
        << "a reduction of 200";
    // Depthwise: small planes grouped into tasks, a large plane on few channels cut into strips.
    const ops::Choice small_planes = choose(ops::Conv2dShape{20, 960, 7, 7, 960, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 960});
    EXPECT_EQ(small_planes.variant, "cpu_depthwise");
    EXPECT_GT(small_planes.knobs.get("task_planes"), 1);
    EXPECT_GE(960 / small_planes.knobs.get("task_planes") * 20, 16);
    const ops::Choice few_planes = choose(ops::Conv2dShape{1, 8, 112, 112, 8, 112, 112, 3, 3, 1, 1, 1, 1, 1, 1, 8});
    EXPECT_EQ(few_planes.variant, "cpu_depthwise");
    EXPECT_GE(8 * ((112 + few_planes.knobs.get("task_rows") - 1) / few_planes.knobs.get("task_rows")), 16);
    EXPECT_EQ(choose(ops::Conv2dShape{1, 8, 14, 14, 16, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 4}).variant,
              "cpu_register_tile")
        << "2 input channels per group: not depthwise";
    // Tasks: at least four where the product allows, whole tiles each.
    const ops::Choice square = choose(ops::GemmShape{256, 256, 256, false, false});
    const int rows = square.knobs.get("rows"), cols = square.knobs.get("cols");
    EXPECT_EQ(square.knobs.get("row_block") % rows, 0);
    EXPECT_EQ(square.knobs.get("col_block") % cols, 0);
    EXPECT_GE((256 + square.knobs.get("row_block") - 1) / square.knobs.get("row_block") *
                  ((256 + square.knobs.get("col_block") - 1) / square.knobs.get("col_block")),
              4);
}

// The default rules cut parallel loops for the target's cores (TargetInfo::cores): at least two
// tasks a core, and no short last round where the shape allows (5 images on 2 cores would leave
// one idle a sixth of the time).
TEST(ParallelRules, TasksKeepEveryCoreBusy) {
    EXPECT_DOUBLE_EQ(schedules::busy_share(5, 2), 5.0 / 6);
    EXPECT_DOUBLE_EQ(schedules::busy_share(10, 2), 1.0);
    EXPECT_DOUBLE_EQ(schedules::busy_share(9, 4), 9.0 / 12);
    EXPECT_DOUBLE_EQ(schedules::busy_share(7, 1), 1.0);
    const schedules::FamilySpace &x86 = schedules::families().at("x86");
    const auto ceil_div = [](int a, int b) { return (a + b - 1) / b; };
    for (const int cores : {1, 2, 3, 4, 16}) {
        schedules::TargetInfo target{"x86-64-linux-avx-avx2-avx512-f16c-fma-sse41", "x86", 512, 0};
        target.cores = cores;
        const auto balanced = [&](long long tasks) {
            return tasks >= 2 * cores && schedules::busy_share(tasks, cores) >= 0.9;
        };
        const auto choose = [&](const ops::Conv2dShape &shape, const char *variant = nullptr) {
            const ChoiceSettings forced{"test", variant ? variant : "", {}, "", false};
            return resolve_choice(
                       x86.op<ops::Conv2dShape>(), shape, target,
                       variant ? std::vector<const ChoiceSettings *>{&forced} : std::vector<const ChoiceSettings *>{})
                .choice;
        };
        // ResNet-50's layer3 1x1 reduction at batch 5: 196 pixels by 256 channels an image.
        const ops::Choice reduce = choose(ops::Conv2dShape{5, 1024, 14, 14, 256, 14, 14, 1, 1, 1, 1, 0, 0, 1, 1, 1});
        EXPECT_EQ(reduce.variant, "cpu_gemm_1x1_channel_lanes");
        const long long gemm_tasks =
            5LL * ceil_div(196, reduce.knobs.get("row_block")) * ceil_div(256, reduce.knobs.get("col_block"));
        EXPECT_TRUE(balanced(gemm_tasks)) << cores << " cores: " << gemm_tasks << " GEMM tasks";
        // Its 3x3 layer as Winograd: a task per image and block of output channels.
        const ops::Choice winograd = choose(ops::Conv2dShape{5, 256, 14, 14, 256, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1});
        EXPECT_EQ(winograd.variant, "cpu_winograd_f4");
        const long long winograd_tasks = 5LL * ceil_div(256, winograd.knobs.get("col_block"));
        EXPECT_TRUE(balanced(winograd_tasks) || winograd.knobs.get("col_block") == winograd.knobs.get("cols"))
            << cores << " cores: " << winograd_tasks << " Winograd tasks";
        // The direct convolution at batch 1: tasks over panels and pixel tiles.
        const ops::Choice direct = choose(ops::Conv2dShape{1, 256, 13, 13, 384, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                                          "cpu_direct_channel_lanes");
        const int tiles = ceil_div(169, direct.knobs.get("rows"));
        const long long direct_tasks = 384 / direct.knobs.get("cols") * ceil_div(tiles, direct.knobs.get("task_tiles"));
        EXPECT_TRUE(balanced(direct_tasks)) << cores << " cores: " << direct_tasks << " direct tasks";
        // Depthwise on few large planes: strips of rows.
        const ops::Choice depthwise = choose(ops::Conv2dShape{1, 8, 112, 112, 8, 112, 112, 3, 3, 1, 1, 1, 1, 1, 1, 8});
        EXPECT_EQ(depthwise.variant, "cpu_depthwise");
        EXPECT_GE(8 * ceil_div(112, depthwise.knobs.get("task_rows")), 8 * cores) << cores;
    }
}

// The default rules read the machine model: register tiles fill its register file, the Winograd
// products' block and the depthwise strips take a quarter of its L2.
TEST(MachineModelRules, RegisterTilesAndL2BlocksFollowTheModel) {
    schedules::TargetInfo t{"x86-64-linux-avx-avx2-avx512-f16c-fma-sse41", "x86", 512, 0};
    const auto with = [&](int registers, int l2_kib) {
        schedules::TargetInfo m = t;
        schedules::MachineModel model = t.model();
        model.vector_registers = registers, model.l2_kib = l2_kib;
        m.machine = model;
        return m;
    };
    const ops::Conv2dShape direct{1, 256, 27, 27, 256, 27, 27, 5, 5, 1, 1, 2, 2, 1, 1, 1};
    const auto registers_used = [](const ops::Choice &c) {
        const int vectors = c.knobs.get("cols") / 16;
        return c.knobs.get("rows") * vectors + vectors + 1;
    };
    const ops::Choice full = choose_on(with(32, 1024), direct), half = choose_on(with(16, 1024), direct);
    EXPECT_EQ(full.variant, "cpu_direct_channel_lanes");
    EXPECT_GT(registers_used(full), 16);
    EXPECT_LE(registers_used(full), 32);
    EXPECT_LE(registers_used(half), 16);
    const ops::Conv2dShape winograd{1, 512, 7, 7, 512, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1};
    const ops::Choice big = choose_on(with(32, 1024), winograd), small = choose_on(with(32, 256), winograd);
    EXPECT_EQ(big.variant, "cpu_winograd_f2");
    EXPECT_LT(small.knobs.get("col_block"), big.knobs.get("col_block"));
    const ops::Conv2dShape depthwise{1, 32, 112, 112, 32, 112, 112, 3, 3, 1, 1, 1, 1, 1, 1, 32};
    const auto strip = [&](int l2_kib) {
        return choose_on(with(32, l2_kib), depthwise, {}, "cpu_depthwise_channel_lanes").knobs.get("task_tiles");
    };
    EXPECT_LT(strip(128), strip(1024)) << "a strip staged within a quarter of L2";
}

// Register tiles keep the FMA pipes busy (tile_fma_share, least_tile_rows). On AVX2's 16
// registers with two pipes of latency 4, a tile of one vector by 7 rows would load an operand per
// FMA and hold fewer accumulators than the pipes keep in flight: 1x1 layers with channels in the
// lanes take at least two vectors and 10 accumulators, on pixel counts that divide by 7 too. A
// core with one 512-bit FMA a cycle (the Zen 4 VM's model) keeps 3 vectors by 7 rows.
TEST(MachineModelRules, TilesHoldTheAccumulatorsTheFmaPipesKeepInFlight) {
    const schedules::TargetInfo avx2{kAvx2, "x86", 256, 0};
    for (int out : {16, 64, 128, 256}) {
        const ops::Conv2dShape s{20, 512, 14, 14, out, 14, 14, 1, 1, 1, 1, 0, 0, 1, 1, 1};
        const ops::Choice c = choose_on(avx2, s, {}, "cpu_gemm_1x1_channel_lanes");
        const int vectors = c.knobs.get("cols") / 8;
        EXPECT_GE(vectors, 2) << out << " output channels";
        EXPECT_GE(c.knobs.get("rows") * vectors, 10) << out << " output channels";
    }
    const ops::Conv2dShape direct{20, 32, 14, 14, 64, 14, 14, 5, 5, 1, 1, 2, 2, 1, 1, 1};
    const ops::Choice lanes = choose_on(avx2, direct, {}, "cpu_direct_channel_lanes");
    EXPECT_GE(lanes.knobs.get("rows") * lanes.knobs.get("cols") / 8, 10);
    const schedules::TargetInfo zen4{kZen4, "x86", 512, 0};
    const ops::Conv2dShape wide{20, 512, 14, 14, 192, 14, 14, 1, 1, 1, 1, 0, 0, 1, 1, 1};
    const ops::Choice z = choose_on(zen4, wide, {}, "cpu_gemm_1x1_channel_lanes");
    EXPECT_EQ(z.knobs.get("cols"), 48);
    EXPECT_EQ(z.knobs.get("rows"), 7);
}

TEST(GemmRules, TilesThatDoNotFitTheRegistersOrTheVectorsAreRefusedWithTheReason) {
    const schedules::TargetInfo avx2{kAvx2, "x86", 256, 0};
    const schedules::FamilySpace &x86 = schedules::families().at("x86");
    const ops::GemmShape shape{64, 64, 64, false, false};
    const auto refused = [&](std::vector<std::pair<std::string, int>> knobs) {
        ChoiceSettings s;
        s.source = "test";
        s.knobs = std::move(knobs);
        try {
            resolve_choice(x86.op<ops::GemmShape>(), shape, avx2, {&s});
        } catch (const CompileError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(refused({{"rows", 8}, {"cols", 24}}).find("need 28 vector registers; the target has 16"),
              std::string::npos);
    EXPECT_NE(refused({{"cols", 12}}).find("cols = 12 is not a whole number of 8-float vectors"), std::string::npos);
    EXPECT_NE(refused({{"rows", 4}, {"row_block", 6}}).find("row_block is not a multiple of rows"), std::string::npos);
    EXPECT_EQ(refused({{"rows", 4}, {"cols", 24}}), "");
}

// The GPU GEMM's default rules with the H100's 128 registers: the skinny form up to 4 rows,
// split into K shares that divide K; the square form's tiles by size; 1x1 layers by map size;
// tiles the registers or K cannot hold are refused with the reason.
TEST(GemmRules, GpuFormsFollowTheRowsAndTheSize) {
    const schedules::TargetInfo h100{kCuda, "gpu", 128, 128};
    const auto choose = [&](const auto &shape, std::vector<std::pair<std::string, int>> knobs = {}) {
        return choose_on(h100, shape, std::move(knobs));
    };
    const ops::Choice fc8 = choose(ops::InnerProductShape{1, 4096, 1000});
    EXPECT_EQ(fc8.variant, "gpu_skinny_gemm");
    EXPECT_EQ(fc8.knobs.get("rows"), 1);
    EXPECT_LT(fc8.knobs.get("k_block"), 4096) << "1000 columns alone leave the GPU short: K is split";
    EXPECT_EQ(4096 % fc8.knobs.get("k_block"), 0);
    EXPECT_EQ(ops::panel_width(fc8), fc8.knobs.get("threads_x") * fc8.knobs.get("cols"));
    EXPECT_EQ(choose(ops::InnerProductShape{5, 4096, 1000}).variant, "gpu_gemm");
    const ops::Choice large = choose(ops::InnerProductShape{4096, 4096, 4096});
    EXPECT_EQ(large.knobs.get("rows"), 8);
    EXPECT_EQ(large.knobs.get("pack_a"), 1);
    EXPECT_EQ(large.knobs.get("k_block"), 4096);
    const ops::Choice medium = choose(ops::InnerProductShape{1024, 1024, 1024});
    EXPECT_EQ(medium.knobs.get("rows"), 4);
    EXPECT_EQ(medium.knobs.get("pack_a"), 0);
    EXPECT_EQ(choose(ops::Conv2dShape{20, 256, 6, 6, 4096, 1, 1, 6, 6, 1, 1, 0, 0, 1, 1, 1}).variant,
              "gpu_gemm_fully_connected");
    EXPECT_EQ(choose(ops::Conv2dShape{1, 256, 6, 6, 4096, 1, 1, 6, 6, 1, 1, 0, 0, 1, 1, 1}).variant,
              "gpu_skinny_gemm_fully_connected");
    const ops::Choice pixels = choose(ops::Conv2dShape{1, 64, 56, 56, 64, 56, 56, 1, 1, 1, 1, 0, 0, 1, 1, 1});
    EXPECT_EQ(pixels.variant, "gpu_gemm_1x1");
    EXPECT_EQ(pixels.weights, ops::WeightPacking::RowPanels);
    EXPECT_EQ(choose(ops::Conv2dShape{1, 832, 7, 7, 384, 7, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1}).variant,
              "gpu_gemm_1x1_channel_lanes");
    const auto refused = [&](std::vector<std::pair<std::string, int>> knobs, int size = 0) {
        try {
            choose(size ? ops::InnerProductShape{size, size, size} : ops::InnerProductShape{37, 60, 97},
                   std::move(knobs));
        } catch (const CompileError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(refused({{"rows", 37}, {"cols", 4}}).find("need more than the 128 registers"), std::string::npos);
    EXPECT_NE(refused({{"k_block", 25}, {"k_unroll", 4}})
                  .find("k_unroll 4 needs K = 60 in whole K blocks of 25, each a multiple of 4"),
              std::string::npos);
    EXPECT_NE(refused({{"threads_x", 64}, {"threads_y", 32}}, 1024).find("a block of 2048 threads"), std::string::npos);
    EXPECT_EQ(refused({{"k_block", 25}, {"k_unroll", 1}}), "") << "a short last share is fine without staged loads";
}

// The GPU depthwise variant: the default for every depthwise layer; whole warps over a plane's
// pixel columns, two rows a thread at stride 1, and a block that is no whole warp refused.
TEST(DepthwiseRules, GpuDefaultsAndLimits) {
    const schedules::TargetInfo h100{kCuda, "gpu", 128, 128};
    const ops::Choice small = choose_on(h100, ops::Conv2dShape{20, 960, 7, 7, 960, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 960});
    EXPECT_EQ(small.variant, "gpu_depthwise");
    EXPECT_EQ(small.knobs.get("rows"), 2);
    EXPECT_EQ(small.knobs.get("threads"), 32) << "7 columns x 4 row pairs fill one warp";
    EXPECT_EQ(small.knobs.get("channels"), 8) << "8 small planes share a block of 256 threads";
    const ops::Choice strided =
        choose_on(h100, ops::Conv2dShape{1, 96, 112, 112, 96, 56, 56, 3, 3, 2, 2, 1, 1, 1, 1, 96});
    EXPECT_EQ(strided.knobs.get("rows"), 1) << "stride-2 rows share no window row";
    EXPECT_EQ(strided.knobs.get("threads"), 256);
    try {
        choose_on(h100, ops::Conv2dShape{1, 8, 9, 9, 8, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 8}, {{"threads", 48}},
                  "gpu_depthwise");
        ADD_FAILURE() << "48 threads accepted";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("not a whole number of warps"), std::string::npos) << e.what();
    }
}

// LeNet's conv2 (50 channels): no partial channel group may be shifted inwards by the block
// split, which NVIDIA's OpenCL left unwritten (conv2d_tile_rule.h); one block of groups may
// keep its partial group.
TEST(RegisterTileRules, APartialChannelGroupIsNeverShiftedByTheBlockSplit) {
    const schedules::TargetInfo h100{kCuda, "gpu", 128, 128};
    const ops::Conv2dShape conv2{5, 20, 12, 12, 50, 8, 8, 5, 5, 1, 1, 0, 0, 1, 1, 1};
    const ops::Choice plain = choose_on(h100, conv2);
    ASSERT_EQ(plain.variant, "gpu_register_tile");
    EXPECT_EQ(50 % plain.knobs.get("channels"), 0) << plain.knobs.get("channels");
    EXPECT_EQ(choose_on(h100, conv2, {{"channels", 4}}).knobs.get("channels"), 2);
    EXPECT_EQ(choose_on(h100, conv2, {{"channels", 8}, {"threads_c", 2}}).knobs.get("channels"), 5);
    EXPECT_EQ(choose_on(h100, conv2, {{"channels", 4}, {"threads_c", 13}}).knobs.get("channels"), 4);
}

// The GPU channel-lanes variant: the default for deep layers on narrow maps from batch 5 and for
// 11x11 stride-4 first layers up to batch 5; its panels fit the groups, split-K makes up the
// threads a small batch lacks, and knobs that break its limits are refused with the reason.
TEST(ChannelLanesRules, GpuDefaultsPanelsAndLimits) {
    const schedules::TargetInfo h100{kCuda, "gpu", 128, 128};
    const auto choose = [&](const ops::Conv2dShape &shape, std::vector<std::pair<std::string, int>> knobs = {}) {
        return choose_on(h100, shape, std::move(knobs));
    };
    // Stride-1 3x3 layers with 96 or more input channels per group take Winograd by default
    // (WinogradRules): those here have 5x5 kernels or dilation, or name the variant.
    const ops::Choice l6 = choose_on(h100, ops::Conv2dShape{20, 384, 6, 6, 1024, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1}, {},
                                     "gpu_direct_channel_lanes");
    EXPECT_EQ(l6.variant, "gpu_direct_channel_lanes");
    EXPECT_EQ(l6.weights, ops::WeightPacking::ColumnPanels);
    EXPECT_EQ(l6.knobs.get("channels"), 4);
    EXPECT_EQ(ops::panel_width(l6), 128) << "32 threads of 4 channels";
    EXPECT_EQ(l6.knobs.get("rows"), 8);
    EXPECT_EQ(choose(ops::Conv2dShape{5, 384, 6, 6, 1024, 6, 6, 5, 5, 1, 1, 2, 2, 1, 1, 2}).variant,
              "gpu_direct_channel_lanes");
    EXPECT_EQ(choose(ops::Conv2dShape{1, 384, 6, 6, 1024, 6, 6, 5, 5, 1, 1, 2, 2, 1, 1, 2}).variant,
              "gpu_register_tile")
        << "batch 1";
    EXPECT_EQ(choose(ops::Conv2dShape{20, 320, 14, 14, 320, 14, 14, 5, 5, 1, 1, 2, 2, 1, 1, 2}).variant,
              "gpu_register_tile")
        << "a 14-wide map";
    EXPECT_EQ(choose(ops::Conv2dShape{20, 192, 13, 13, 256, 13, 13, 3, 3, 1, 1, 2, 2, 2, 2, 2}).variant,
              "gpu_register_tile")
        << "a reduction of 864";
    const ops::Choice conv1 = choose(ops::Conv2dShape{1, 3, 227, 227, 96, 55, 55, 11, 11, 4, 4, 0, 0, 1, 1, 1});
    EXPECT_EQ(conv1.variant, "gpu_direct_channel_lanes");
    EXPECT_EQ(conv1.knobs.get("rows"), 4) << "an 11x11 kernel takes 4 pixels per thread";
    EXPECT_EQ(ops::panel_width(conv1), 96) << "24 threads of 4 channels waste none of 96";
    EXPECT_EQ(choose(ops::Conv2dShape{20, 3, 227, 227, 96, 55, 55, 11, 11, 4, 4, 0, 0, 1, 1, 1}).variant,
              "gpu_register_tile");
    const ops::Choice grouped = choose_on(
        h100, ops::Conv2dShape{5, 384, 13, 13, 256, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 2}, {}, "gpu_direct_channel_lanes");
    EXPECT_EQ(grouped.variant, "gpu_direct_channel_lanes");
    EXPECT_EQ(128 % ops::panel_width(grouped), 0) << "a panel within one group of 128";
    const ops::Choice split = choose_on(h100, ops::Conv2dShape{5, 384, 13, 13, 384, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                                        {}, "gpu_direct_channel_lanes");
    EXPECT_GT(split.knobs.get("split_k"), 1) << "5 x 22 tiles x 96 threads fall short of 65536";
    EXPECT_GE(384 / split.knobs.get("split_k"), 16) << "at least 16 input channels per share";
    const auto refused = [&](std::vector<std::pair<std::string, int>> knobs) {
        try {
            choose_on(h100, ops::Conv2dShape{1, 64, 9, 9, 96, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 2}, std::move(knobs),
                      "gpu_direct_channel_lanes");
        } catch (const CompileError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(refused({{"channels", 4}, {"panel", 30}}).find("panel = 30 is not a multiple of channels = 4"),
              std::string::npos);
    EXPECT_NE(refused({{"channels", 4}, {"panel", 32}}).find("does not divide the 48 output channels per group"),
              std::string::npos);
    EXPECT_NE(refused({{"channels", 16}, {"rows", 8}})
                  .find("a tile of 128 accumulators is more than the 88 that 128 registers leave"),
              std::string::npos);
    const ops::Choice small_budget =
        choose(ops::Conv2dShape{20, 384, 6, 6, 1024, 6, 6, 5, 5, 1, 1, 2, 2, 1, 1, 2}, {{"registers", 32}});
    EXPECT_EQ(small_budget.variant, "gpu_direct_channel_lanes");
    EXPECT_LE(small_budget.knobs.get("channels") * small_budget.knobs.get("rows"), 4)
        << "32 registers leave 4 accumulators: the default tile shrinks to fit instead of being refused";
    EXPECT_NE(refused({{"channels", 1}, {"panel", 16}, {"threads_q", 128}}).find("a block of 2048 threads"),
              std::string::npos);
    EXPECT_EQ(refused({{"channels", 2}, {"panel", 48}}), "");
}

// The GPU family's Winograd rule: F(2x2) for stride-1 3x3 layers from 96 input channels per
// group, its weights transformed into panels as wide as a block's columns and within a group;
// F(4x4) only when named; each carries its tolerance; K blocks that staged loads cannot use are
// refused.
TEST(WinogradRules, GpuF2ByDefaultFrom96InputChannelsF4OnlyWhenNamed) {
    const schedules::TargetInfo h100{kCuda, "gpu", 128, 128};
    const ops::Conv2dShape l6{1, 1024, 15, 15, 1024, 15, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1};
    const ops::Choice f2 = choose_on(h100, l6);
    EXPECT_EQ(f2.variant, "gpu_winograd_f2");
    EXPECT_EQ(f2.weights, ops::WeightPacking::WinogradPanels);
    EXPECT_EQ(ops::panel_width(f2), f2.knobs.get("threads_x") * f2.knobs.get("cols"));
    EXPECT_FLOAT_EQ(f2.tolerance, 1e-5f);
    const auto variant = [&](const ops::Conv2dShape &s) { return choose_on(h100, s).variant; };
    EXPECT_EQ(variant({20, 96, 28, 28, 128, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1}), "gpu_winograd_f2");
    EXPECT_NE(variant({20, 64, 56, 56, 192, 56, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1}), "gpu_winograd_f2")
        << "64 input channels";
    EXPECT_NE(variant({20, 256, 27, 27, 256, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1}), "gpu_winograd_f2") << "stride 2";
    EXPECT_EQ(variant({20, 384, 13, 13, 384, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 2}), "gpu_winograd_f2")
        << "2 groups of 192";
    EXPECT_NE(variant({20, 256, 13, 13, 256, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 4}), "gpu_winograd_f2")
        << "4 groups of 64";
    const ops::Conv2dShape groups_of_96{5, 192, 13, 13, 192, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1, 2};
    const ops::Choice grouped = choose_on(h100, groups_of_96);
    EXPECT_EQ(grouped.variant, "gpu_winograd_f2");
    EXPECT_EQ(96 % ops::panel_width(grouped), 0) << "panel " << ops::panel_width(grouped) << " within a group of 96";
    EXPECT_EQ(ops::panel_width(grouped) % grouped.knobs.get("cols"), 0) << "whole thread tiles per panel";
    EXPECT_EQ(ops::panel_width(choose_on(h100, groups_of_96, {{"panel", 64}}, "gpu_winograd_f2")), 64)
        << "a named panel across groups is kept: it computes the same, only slower";
    EXPECT_NE(variant({20, 192, 27, 27, 256, 27, 27, 5, 5, 1, 1, 2, 2, 1, 1, 1}), "gpu_winograd_f2") << "5x5";
    const ops::Choice f4 = choose_on(h100, l6, {}, "gpu_winograd_f4");
    EXPECT_EQ(f4.variant, "gpu_winograd_f4");
    EXPECT_FLOAT_EQ(f4.tolerance, 3e-5f);
    try {
        choose_on(h100, l6, {{"k_block", 24}, {"k_unroll", 4}}, "gpu_winograd_f4");
        ADD_FAILURE() << "K blocks of 24 over 1024 channels were accepted with k_unroll 4";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("k_unroll 4 needs K = 1024 in whole K blocks of 24"), std::string::npos)
            << e.what();
    }
}

// The blocked layout's text: nchw<b>c, read back the same; anything else is refused.
TEST(Layouts, TextRoundTripsAndBadLayoutsAreRefused) {
    ops::Layout layout;
    ops::parse_field("nchw16c", layout);
    EXPECT_EQ(layout.channel_block, 16);
    EXPECT_EQ(ops::field_value(layout), "nchw16c");
    ops::parse_field("nchw", layout);
    EXPECT_FALSE(layout.blocked());
    EXPECT_EQ(ops::field_value(layout), "nchw");
    for (const char *bad : {"nhwc", "nchw0c", "nchwc", "nchw8", "nchw-8c", "nchw8x"})
        EXPECT_THROW(ops::parse_field(bad, layout), std::invalid_argument) << bad;
}

// A 1x1 layer and two 3x3 layers on 32 channels, then pooling.
Graph chain_to_pooling() {
    Graph graph = import_caffe_prototxt_text(
        "input: \"data\"\ninput_shape { dim: 1 dim: 32 dim: 14 dim: 14 }\n"
        "layer { name: \"c1\" type: \"Convolution\" bottom: \"data\" top: \"c1\" convolution_param { num_output: 32 kernel_size: 1 } }\n"
        "layer { name: \"c2\" type: \"Convolution\" bottom: \"c1\" top: \"c2\" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }\n"
        "layer { name: \"c3\" type: \"Convolution\" bottom: \"c2\" top: \"c3\" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }\n"
        "layer { name: \"p\" type: \"Pooling\" bottom: \"c3\" top: \"p\" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n",
        "layouts.prototxt", ImportOptions{});
    infer_shapes(graph);
    return graph;
}

int channel_block_of(const NetworkPlan &plan, const std::string &blob) {
    for (const PlannedTensor &t : plan.tensors)
        if (t.blob_name == blob) return t.channel_block;
    ADD_FAILURE() << "no tensor " << blob;
    return -1;
}

// On the CPU, tensors between convolutions and poolings that handle blocks are blocked by one
// vector (8 on AVX2); the network's input and output, GPU plans and ActivationLayouts::Nchw stay
// NCHW. Each step's kernel and views agree with its tensors' layouts.
TEST(Layouts, ChannelBlocksJoinConvolutionsThatHandleThemOnly) {
    const Graph graph = chain_to_pooling();
    {
        ScopedKnobs knobs("conv2d.variant=cpu_direct_channel_lanes");
        const NetworkPlan plan = plan_network(graph, "net", kAvx2, test_plan_options());
        EXPECT_EQ(channel_block_of(plan, "data"), 0);
        EXPECT_EQ(channel_block_of(plan, "c1"), 8);
        EXPECT_EQ(channel_block_of(plan, "c2"), 8);
        EXPECT_EQ(channel_block_of(plan, "c3"), 8) << "pooling reads blocks";
        EXPECT_EQ(channel_block_of(plan, "p"), 0) << "the network's output";
        const ops::Choice &first = plan.kernels[plan.steps[0].kernel].choice;
        const ops::Choice &middle = plan.kernels[plan.steps[1].kernel].choice;
        const ops::Choice &last = plan.kernels[plan.steps[2].kernel].choice;
        EXPECT_EQ(ops::field_value(first.layout_in) + " " + ops::field_value(first.layout_out), "nchw nchw8c");
        EXPECT_EQ(ops::field_value(middle.layout_in) + " " + ops::field_value(middle.layout_out), "nchw8c nchw8c");
        EXPECT_EQ(ops::field_value(last.layout_in) + " " + ops::field_value(last.layout_out), "nchw8c nchw8c");
        const ops::Choice &pooling = plan.kernels[plan.steps[3].kernel].choice;
        EXPECT_EQ(ops::field_value(pooling.layout_in) + " " + ops::field_value(pooling.layout_out), "nchw8c nchw");
        EXPECT_EQ(plan.steps[3].views.front().extents, (std::vector<int>{8 * 14, 14, 4, 1}));
        EXPECT_EQ(plan.steps[1].views.front().extents, (std::vector<int>{8 * 14, 14, 4, 1}));
        EXPECT_EQ(plan.steps[1].views.back().extents, (std::vector<int>{8 * 14 * 14, 4, 1, 1}));
        for (const KernelInstance &k : plan.kernels)  // the NCHW kernels the blocked ones replaced are gone
            EXPECT_TRUE(k.op != "conv2d" || k.choice.layout_in.blocked() || k.choice.layout_out.blocked());

        const ScopedLayouts nchw(ActivationLayouts::Nchw);
        for (const PlannedTensor &t : plan_network(graph, "net", kAvx2, test_plan_options()).tensors)
            EXPECT_EQ(t.channel_block, 0);
    }
    {
        ScopedKnobs knobs("conv2d.variant=gpu_direct_channel_lanes");
        for (const PlannedTensor &t : plan_network(graph, "net", kCuda, test_plan_options()).tensors)
            EXPECT_EQ(t.channel_block, 0);
    }
    {
        ScopedKnobs knobs("conv2d.variant=cpu_register_tile");
        for (const PlannedTensor &t : plan_network(graph, "net", kAvx2, test_plan_options()).tensors)
            EXPECT_EQ(t.channel_block, 0);
    }
    try {
        parse_activation_layouts("nhwc", "--layouts");
        ADD_FAILURE() << "nhwc was accepted";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("--layouts is 'nhwc': nchw"), std::string::npos) << e.what();
    }
}

// A residual block: c2 adds c1 (the sum fused into c2's epilogue), then `reader` reads the sum.
Graph residual_block(const std::string &reader) {
    Graph graph = import_caffe_prototxt_text(
        "input: \"data\"\ninput_shape { dim: 1 dim: 32 dim: 14 dim: 14 }\n"
        "layer { name: \"c1\" type: \"Convolution\" bottom: \"data\" top: \"c1\" convolution_param { num_output: 32 kernel_size: 1 } }\n"
        "layer { name: \"c2\" type: \"Convolution\" bottom: \"c1\" top: \"c2\" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }\n"
        "layer { name: \"s\" type: \"Eltwise\" bottom: \"c2\" bottom: \"c1\" top: \"s\" }\n" +
            reader,
        "residual.prototxt", ImportOptions{});
    infer_shapes(graph);
    fuse_layers(graph);
    return graph;
}

// A residual and the output of the sum that reads it share a layout: both blocked when every
// reader of either takes blocks, both NCHW when one does not (here LRN reads the sum).
TEST(Layouts, AResidualIsBlockedWithItsSumOrNotAtAll) {
    ScopedKnobs knobs("conv2d.variant=cpu_direct_channel_lanes");
    const NetworkPlan conv =
        plan_network(residual_block("layer { name: \"c3\" type: \"Convolution\" bottom: \"s\" top: \"c3\" "
                                    "convolution_param { num_output: 32 kernel_size: 1 } }\n"),
                     "net", kAvx2, test_plan_options());
    ASSERT_EQ(conv.steps.size(), 3u) << "the sum did not fuse";
    EXPECT_EQ(channel_block_of(conv, "c1"), 8);
    EXPECT_EQ(conv.tensors[conv.steps[1].output_tensor].channel_block, 8);
    const ops::Choice &sum = conv.kernels[conv.steps[1].kernel].choice;
    EXPECT_TRUE(sum.epilogue.sum);
    EXPECT_EQ(ops::field_value(sum.layout_in) + " " + ops::field_value(sum.layout_out), "nchw8c nchw8c");
    const std::vector<PlannedView> &views = conv.steps[1].views;
    EXPECT_EQ(views[views.size() - 2].extents, views.back().extents) << "the residual is seen as the output";
    EXPECT_EQ(views.back().extents, (std::vector<int>{8 * 14 * 14, 4, 1, 1}));

    const NetworkPlan pooled =
        plan_network(residual_block("layer { name: \"n\" type: \"LRN\" bottom: \"s\" top: \"n\" }\n"), "net", kAvx2,
                     test_plan_options());
    for (const PlannedTensor &t : pooled.tensors) EXPECT_EQ(t.channel_block, 0) << t.blob_name;
}

// A sum fused into a convolution writes over its residual where that is the residual's last
// read: one storage, one offset. Not where a later layer reads the residual, nor where the
// convolution's own input is the residual (x + conv(x)), nor on a GPU, nor for a variant that
// may write an output element twice.
TEST(Memory, ASumWritesOverItsResidualWhereItIsTheLastReader) {
    const auto plan = [](const std::string &later, const char *target) {
        Graph graph = import_caffe_prototxt_text(
            "input: \"data\"\ninput_shape { dim: 2 dim: 32 dim: 14 dim: 14 }\n"
            "layer { name: \"c0\" type: \"Convolution\" bottom: \"data\" top: \"c0\" convolution_param { num_output: 32 kernel_size: 1 } }\n"
            "layer { name: \"c1\" type: \"Convolution\" bottom: \"c0\" top: \"c1\" convolution_param { num_output: 32 kernel_size: 1 } }\n"
            "layer { name: \"c2\" type: \"Convolution\" bottom: \"c1\" top: \"c2\" convolution_param { num_output: 32 kernel_size: 1 } }\n"
            "layer { name: \"s\" type: \"Eltwise\" bottom: \"c2\" bottom: \"c0\" top: \"s\" }\n"
            "layer { name: \"c3\" type: \"Convolution\" bottom: \"s\" top: \"c3\" convolution_param { num_output: 32 kernel_size: 1 } }\n" +
                later,
            "sum.prototxt", ImportOptions{});
        infer_shapes(graph);
        fuse_layers(graph);
        return plan_network(graph, "net", target, test_plan_options());
    };
    const auto sum_step = [](const NetworkPlan &p) -> const PlannedStep & {
        for (const PlannedStep &s : p.steps)
            if (s.layer == "c2+s") return s;
        throw std::runtime_error("no step c2+s");
    };
    const auto offset_of = [](const NetworkPlan &p, const std::string &blob) {
        for (const PlannedTensor &t : p.tensors)
            if (t.blob_name == blob) return t.offset;
        throw std::runtime_error("no blob " + blob);
    };
    const NetworkPlan last = plan("", kAvx2);
    EXPECT_TRUE(sum_step(last).over_residual);
    EXPECT_EQ(offset_of(last, "s"), offset_of(last, "c0"));

    const NetworkPlan read_later = plan(
        "layer { name: \"c4\" type: \"Convolution\" bottom: \"c0\" top: \"c4\" convolution_param { num_output: 32 kernel_size: 1 } }\n"
        "layer { name: \"e\" type: \"Eltwise\" bottom: \"c3\" bottom: \"c4\" top: \"e\" }\n",
        kAvx2);
    EXPECT_FALSE(sum_step(read_later).over_residual) << "c4 reads c0 after the sum";
    EXPECT_NE(offset_of(read_later, "s"), offset_of(read_later, "c0"));

    const NetworkPlan own_input =
        plan_network(residual_block("layer { name: \"c3\" type: \"Convolution\" bottom: \"s\" top: \"c3\" "
                                    "convolution_param { num_output: 32 kernel_size: 1 } }\n"),
                     "net", kAvx2, test_plan_options());
    for (const PlannedStep &s : own_input.steps) EXPECT_FALSE(s.over_residual) << s.layer << ": c2 reads c1";

    for (const PlannedStep &s : plan("", kCuda).steps) EXPECT_FALSE(s.over_residual) << s.layer;
    {
        ScopedKnobs knobs("conv2d.variant=cpu_direct_channel_lanes");
        EXPECT_FALSE(sum_step(plan("", kAvx2)).over_residual) << "its last tile of pixels is shifted inwards";
    }
}

// A 1x1 layer on a 28x28 map, which the default rule runs with pixels in the lanes, then `reader`.
Graph pointwise_then(const std::string &reader) {
    Graph graph = import_caffe_prototxt_text(
        "input: \"data\"\ninput_shape { dim: 1 dim: 32 dim: 28 dim: 28 }\n"
        "layer { name: \"c1\" type: \"Convolution\" bottom: \"data\" top: \"c1\" convolution_param { num_output: 64 kernel_size: 1 } }\n" +
            reader,
        "pointwise.prototxt", ImportOptions{});
    infer_shapes(graph);
    return graph;
}

// The plan moves a default-ruled 1x1 layer to the GEMM with channels in the lanes where its output
// is then blocked (a 3x3 convolution reads it), and says so; not where LRN reads it, nor where a
// stronger source chose its variant. A shallow first layer (3 channels) moves to the direct
// convolution with channels in the lanes where a pooling that feeds a convolution reads it.
TEST(Layouts, APointwiseLayerTakesChannelLanesWhereItsOutputStaysBlocked) {
    const std::string conv =
        "layer { name: \"c2\" type: \"Convolution\" bottom: \"c1\" top: \"c2\" "
        "convolution_param { num_output: 64 kernel_size: 3 pad: 1 } }\n";
    const NetworkPlan switched = plan_network(pointwise_then(conv), "net", kAvx2, test_plan_options());
    const KernelInstance &c1 = switched.kernels[switched.steps[0].kernel];
    EXPECT_EQ(c1.choice.variant, "cpu_gemm_1x1_channel_lanes");
    EXPECT_EQ(c1.variant_source, "layout rule");
    EXPECT_EQ(channel_block_of(switched, "c1"), 8);

    const NetworkPlan pooled =
        plan_network(pointwise_then("layer { name: \"n\" type: \"LRN\" bottom: \"c1\" top: \"n\" }\n"), "net", kAvx2,
                     test_plan_options());
    EXPECT_EQ(pooled.kernels[pooled.steps[0].kernel].choice.variant, "cpu_gemm_1x1");
    EXPECT_EQ(pooled.kernels[pooled.steps[0].kernel].variant_source, "default rule");

    Graph stem = import_caffe_prototxt_text(
        "input: \"data\"\ninput_shape { dim: 1 dim: 3 dim: 32 dim: 32 }\n"
        "layer { name: \"c1\" type: \"Convolution\" bottom: \"data\" top: \"c1\" convolution_param { num_output: 32 kernel_size: 7 stride: 2 pad: 3 } }\n"
        "layer { name: \"p\" type: \"Pooling\" bottom: \"c1\" top: \"p\" pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 } }\n"
        "layer { name: \"c2\" type: \"Convolution\" bottom: \"p\" top: \"c2\" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }\n",
        "stem.prototxt", ImportOptions{});
    infer_shapes(stem);
    const NetworkPlan stem_plan = plan_network(stem, "net", kAvx2, test_plan_options());
    EXPECT_EQ(stem_plan.kernels[stem_plan.steps[0].kernel].choice.variant, "cpu_direct_channel_lanes");
    EXPECT_EQ(stem_plan.kernels[stem_plan.steps[0].kernel].variant_source, "layout rule");
    EXPECT_EQ(channel_block_of(stem_plan, "c1"), 8);
    EXPECT_EQ(channel_block_of(stem_plan, "p"), 8);

    ScopedKnobs knobs("conv2d.variant=cpu_gemm_1x1");
    const NetworkPlan forced = plan_network(pointwise_then(conv), "net", kAvx2, test_plan_options());
    EXPECT_EQ(forced.kernels[forced.steps[0].kernel].choice.variant, "cpu_gemm_1x1");
    EXPECT_EQ(channel_block_of(forced, "c1"), 0);
}

// Winograd reads a blocked input either way, and writes a blocked output only from
// channel-innermost products.
TEST(Layouts, WinogradWritesBlocksOnlyFromChannelInnermostProducts) {
    const Graph graph = conv_graph();  // c1 -> c2, both 3x3
    {
        ScopedKnobs knobs("conv2d.variant=cpu_winograd_f2,conv2d.channel_products=0");
        for (const PlannedTensor &t : plan_network(graph, "net", kAvx2, test_plan_options()).tensors)
            EXPECT_EQ(t.channel_block, 0);
    }
    ScopedKnobs knobs("conv2d.variant=cpu_winograd_f4,conv2d.channel_products=1");
    const NetworkPlan plan = plan_network(graph, "net", kAvx2, test_plan_options());
    EXPECT_EQ(channel_block_of(plan, "c1"), 8);
    EXPECT_EQ(plan.steps[0].views.back().extents, (std::vector<int>{8 * 14, 14, 4, 1}));
    EXPECT_EQ(ops::field_value(plan.kernels[plan.steps[1].kernel].choice.layout_in), "nchw8c");
}

TEST(Choices, MisspeltKnobsUnknownOpsAndOutOfRangeValuesNameTheLayerKnobAndRange) {
    const Graph graph = conv_graph();
    {
        ScopedKnobs knobs("conv2d.rws=4");
        const std::string e = plan_error(graph, kCuda);
        EXPECT_NE(
            e.find(
                "layer 'c1' (Convolution): test knobs: conv2d on family gpu, variant gpu_register_tile, has no knob 'rws'"),
            std::string::npos)
            << e;
        EXPECT_NE(e.find("rows 1..16"), std::string::npos) << e;
    }
    {
        ScopedKnobs knobs("conv2d.rows=99");
        const std::string e = plan_error(graph, kCuda);
        EXPECT_NE(e.find("layer 'c1'"), std::string::npos) << e;
        EXPECT_NE(e.find("conv2d knob rows = 99 is out of range: rows 1..16"), std::string::npos) << e;
    }
    {
        ScopedKnobs knobs("conv.rows=4");
        EXPECT_NE(plan_error(graph, kCuda).find("no op 'conv'; the ops are conv2d,"), std::string::npos);
    }
    {
        ScopedKnobs knobs("conv2d.variant=winograd");
        const std::string e = plan_error(graph, kAvx2);
        EXPECT_NE(e.find("conv2d on family x86 has no variant 'winograd'; it has cpu_register_tile"), std::string::npos)
            << e;
    }
    // A limit across knobs: a block of more than 1024 threads (on a map wide enough to keep them).
    {
        ScopedKnobs knobs("conv2d.threads_x=64,conv2d.channels=1,conv2d.threads_c=32");
        const std::string e = plan_error(conv_graph(1, 64), kCuda);
        EXPECT_NE(
            e.find("a block of 2048 threads; CUDA and OpenCL allow 1024 (channels from test knobs, threads_c from "
                   "test knobs, threads_x from test knobs)"),
            std::string::npos)
            << e;
    }
}

TEST(Choices, SourcesApplyStrongestFirstKnobByKnob) {
    const Graph graph = conv_graph();
    PlanTarget target(kCuda);
    target.knobs = "conv2d.rows=2,conv2d.cols=2,conv2d.channels=2";
    const KernelInstance probe = plan_network(graph, "net", target, test_plan_options()).kernels[0];
    ChoiceOverrides records;
    records[probe.op_signature_hash()] = record("db:1", "", {{"rows", 3}, {"cols", 3}});
    ScopedKnobs knobs("conv2d.rows=4");
    const NetworkPlan plan = plan_network(graph, "net", target, with_records(records));
    ASSERT_EQ(plan.kernels.size(), 1u);  // c1 and c2 have one shape and one choice: one kernel
    const KernelInstance &k = plan.kernels[0];
    EXPECT_EQ(k.choice.knobs.get("rows"), 4);
    EXPECT_EQ(knob_source(k, "rows"), "test knobs");
    EXPECT_EQ(k.choice.knobs.get("cols"), 3);
    EXPECT_EQ(knob_source(k, "cols"), "db:1");
    EXPECT_EQ(k.choice.knobs.get("channels"), 2);
    EXPECT_EQ(knob_source(k, "channels"), "target knobs");
    EXPECT_EQ(knob_source(k, "threads_x"), "default rule");
    EXPECT_EQ(k.variant_source, "default rule");
}

TEST(Choices, TheStrongestSourcesVariantWinsAndRecordsForOtherVariantsKeepTheirKnobs) {
    const Graph graph = conv_graph();
    ChoiceOverrides records;
    records[plan_network(graph, "net", kCuda, test_plan_options()).kernels[0].op_signature_hash()] =
        record("db:3", "gpu_staged", {{"stage_channels", 2}, {"rows", 3}});
    {
        // The record alone: its variant and knobs.
        const KernelInstance k = plan_network(graph, "net", kCuda, with_records(records)).kernels[0];
        EXPECT_EQ(k.choice.variant, "gpu_staged");
        EXPECT_EQ(k.variant_source, "db:3");
        EXPECT_EQ(k.choice.knobs.get("stage_channels"), 2);
    }
    {
        // An experiment choosing the register variant: the record's staged knobs are not used.
        ScopedKnobs knobs("conv2d.variant=gpu_register_tile");
        const KernelInstance k = plan_network(graph, "net", kCuda, with_records(records)).kernels[0];
        EXPECT_EQ(k.choice.variant, "gpu_register_tile");
        EXPECT_EQ(k.variant_source, "test knobs");
        EXPECT_EQ(knob_source(k, "rows"), "default rule");
        ASSERT_FALSE(k.notes.empty());
        EXPECT_NE(k.notes[0].find("db:3: knobs for gpu_staged not used"), std::string::npos) << k.notes[0];
    }
    {
        // A family-wide knob of another variant is noted, not applied.
        ScopedKnobs knobs("conv2d.stage_channels=8");
        const KernelInstance k = plan_network(graph, "net", kCuda, test_plan_options()).kernels[0];
        EXPECT_EQ(k.choice.variant, "gpu_register_tile");
        ASSERT_FALSE(k.notes.empty());
        EXPECT_NE(k.notes[0].find("stage_channels is not a knob of gpu_register_tile"), std::string::npos);
    }
    // A record whose op is not the op of its signature is refused.
    records.begin()->second.op = "pooling";
    EXPECT_NE(
        plan_error(graph, kCuda, records).find("db:3: a record for op pooling has the op signature of this conv2d"),
        std::string::npos);
}

TEST(Choices, AVariantThatCannotComputeALayerIsAnErrorOnlyWhereARecordAsksForIt) {
    const Graph grouped = conv_graph(2);
    {
        // Family-wide: grouped layers keep the default variant, and say why.
        ScopedKnobs knobs("conv2d.variant=gpu_staged,conv2d.stage_channels=8");
        const NetworkPlan plan = plan_network(grouped, "net", kCuda, test_plan_options());
        EXPECT_EQ(plan.kernels[0].choice.variant, "gpu_register_tile");
        EXPECT_EQ(plan.kernels[0].variant_source, "default rule");
        ASSERT_FALSE(plan.kernels[0].notes.empty());
        EXPECT_NE(plan.kernels[0].notes[0].find("gpu_staged not taken: grouped convolutions cannot stage"),
                  std::string::npos);
    }
    const KernelInstance probe = plan_network(grouped, "net", kCuda, test_plan_options()).kernels[0];
    ChoiceOverrides records;
    records[probe.op_signature_hash()] = record("db:7", "gpu_staged", {});
    EXPECT_NE(plan_error(grouped, kCuda, records)
                  .find("db:7: variant gpu_staged of conv2d on family gpu: grouped convolutions cannot stage"),
              std::string::npos);
    // Ungrouped, the staged variant takes the record's knobs and the shape's tile around them,
    // the tile its schedule will use.
    const Graph plain = conv_graph();
    ChoiceOverrides staged;
    staged[plan_network(plain, "net", kCuda, test_plan_options()).kernels[0].op_signature_hash()] =
        record("db:8", "gpu_staged", {{"rows", 2}});
    const KernelInstance k = plan_network(plain, "net", kCuda, with_records(staged)).kernels[0];
    EXPECT_EQ(k.choice.variant, "gpu_staged");
    EXPECT_EQ(k.choice.knobs.get("rows"), 2);
    const ops::Conv2dShape shape{1, 32, 14, 14, 32, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1};
    schedules::gpu::Conv2dKnobs pinned;
    pinned.rows = 2;
    const schedules::gpu::StagedConvTile tile = schedules::gpu::resolve_staged_tile(shape, pinned);
    EXPECT_EQ(k.choice.knobs.get("threads_y"), tile.threads_y);
    EXPECT_EQ(k.choice.knobs.get("stage_channels"), tile.stage_channels);
    EXPECT_EQ(k.choice.knobs.get("split_k"), tile.split_k);
    // A split that does not divide the input channels is named at plan time.
    staged.begin()->second.knobs = {{"split_k", 3}};
    EXPECT_NE(plan_error(plain, kCuda, staged).find("split_k 3 does not divide the 32 input channels"),
              std::string::npos)
        << plan_error(plain, kCuda, staged);
}

TEST(Choices, TheFamilyIsPartOfBothSignatures) {
    const Graph graph = conv_graph();
    PlanTarget generic(kAvx2);
    generic.family = "cpu";
    const KernelInstance x86 = plan_network(graph, "net", kAvx2, test_plan_options()).kernels[0];
    const KernelInstance cpu = plan_network(graph, "net", generic, test_plan_options()).kernels[0];
    EXPECT_EQ(x86.family, "x86");
    EXPECT_EQ(cpu.family, "cpu");
    EXPECT_NE(x86.op_signature_hash(), cpu.op_signature_hash());
    EXPECT_NE(x86.function_name(), cpu.function_name());
    EXPECT_EQ(x86.choice.variant, cpu.choice.variant);
}

TEST(Choices, FamiliesMustExistAndSuitTheTarget) {
    const Graph graph = conv_graph();
    PlanTarget target(kAvx2);
    target.family = "gpu";
    EXPECT_NE(plan_error(graph, target).find("the gpu family needs CUDA or OpenCL"), std::string::npos);
    target.family = "sparc";
    EXPECT_NE(plan_error(graph, target)
                  .find("unknown schedule family 'sparc'; the families are " + schedules::family_names()),
              std::string::npos)
        << plan_error(graph, target);
    EXPECT_NE(schedules::family_names().find("arm, cpu, gpu, hvx"), std::string::npos) << schedules::family_names();
    PlanTarget cuda(kCuda);
    cuda.family = "x86";
    EXPECT_NE(plan_error(graph, cuda).find("a GPU target needs the gpu family"), std::string::npos);
    const std::string path =
        (std::filesystem::temp_directory_path() / ("family-" + std::to_string(::getpid()) + ".target")).string();
    std::ofstream(path) << "halide_target = arm-64-linux\nschedule_family = x86\n";
    try {
        resolve_target(path);
        ADD_FAILURE() << "x86 family accepted for arm";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find(path + ": schedule family 'x86' cannot serve target arm-64-linux"),
                  std::string::npos)
            << e.what();
    }
    std::filesystem::remove(path);
}

class TuningDb : public ::testing::Test {
  protected:
    std::string write(const std::string &text) {
        std::ofstream(path_) << text;
        return path_;
    }
    void TearDown() override { std::filesystem::remove(path_); }
    std::string path_ =
        (std::filesystem::temp_directory_path() / ("db-" + std::to_string(::getpid()) + ".jsonl")).string();
};

// A measured record as `cortado tune` writes it, for the signature of `kernel`.
TuningRecord measured(const KernelInstance &kernel, const std::string &variant,
                      std::vector<std::pair<std::string, int>> knobs, double median_ms) {
    TuningRecord r;
    r.op_signature = kernel.op_signature_hash();
    r.op = kernel.op;
    r.layer = "c1";
    r.variant = variant;
    r.knobs = std::move(knobs);
    r.median_ms = median_ms;
    r.min_ms = median_ms * 0.9;
    r.max_ms = median_ms * 1.25;
    r.repetitions = 10;
    r.error = 1.5e-7;
    r.tolerance = 1e-5;
    r.shape = kernel.shape;
    r.target = kernel.target;
    r.family = kernel.family;
    r.schedule_version = schedule_version(kernel.op, variant);
    r.date = "2026-11-24";
    return r;
}

TEST_F(TuningDb, HandWrittenRecordsApplyByOpSignatureAndALaterOneWins) {
    const Graph graph = conv_graph();
    const KernelInstance probe = plan_network(graph, "net", kCuda, test_plan_options()).kernels[0];
    const std::string sig = probe.op_signature_hash();
    const ChoiceOverrides records =
        read_tuning_db(write("{\"op_signature\": \"" + sig +
                             "\", \"op\": \"conv2d\", \"variant\": \"gpu_staged\", \"knobs\": {\"rows\": 2}}\n\n"
                             "{\"op_signature\": \"" +
                             sig +
                             "\", \"op\": \"conv2d\", \"knobs\": {\"rows\": 7, \"channels\": 2}, \"note\": \"mine\"}\n"
                             "{\"op_signature\": \"0000000000000000\", \"op\": \"pooling\"}\n"));
    const KernelInstance k = plan_network(graph, "net", kCuda, with_records(records)).kernels[0];
    EXPECT_EQ(k.choice.variant, "gpu_register_tile");  // replaced, not merged: line 3 names no variant
    EXPECT_EQ(k.choice.knobs.get("rows"), 7);
    EXPECT_EQ(k.choice.knobs.get("channels"), 2);
    EXPECT_EQ(knob_source(k, "rows"), path_ + ":3");
}

TEST_F(TuningDb, RecordsRoundTripAtFullPrecision) {
    const KernelInstance probe = plan_network(conv_graph(), "net", kCuda, test_plan_options()).kernels[0];
    TuningRecord r = measured(probe, "gpu_staged", {{"rows", 4}, {"channels", 8}}, 0.1234567890123456789);
    r.error = 3.0000000000000004e-7;
    TuningRecord rejected = measured(probe, "gpu_register_tile", {{"rows", 2}}, -1);
    rejected.rejected = true;
    rejected.reason = "relative L2 error 0.5 above the variant's tolerance 1e-05";
    rejected.error = 0.5;
    const TuningDbFile file =
        read_tuning_records(write(tuning_record_json(r) + "\n" + tuning_record_json(rejected) + "\n"), true);
    ASSERT_EQ(file.records.size(), 2u);
    EXPECT_TRUE(file.warnings.empty());
    const TuningRecord &back = file.records[0];
    EXPECT_EQ(back.where, path_ + ":1");
    for (const TuningRecord *pair : {&back, &file.records[1]}) {
        const TuningRecord &original = pair == &back ? r : rejected;
        TuningRecord copy = *pair;
        copy.where = "";
        EXPECT_EQ(tuning_record_json(copy), tuning_record_json(original));  // every field, every digit
    }
    EXPECT_EQ(back.median_ms, r.median_ms);
    EXPECT_EQ(back.error, r.error);
    EXPECT_EQ(back.knobs, r.knobs);
    EXPECT_TRUE(file.records[1].rejected);
    EXPECT_EQ(file.records[1].reason, rejected.reason);
}

TEST_F(TuningDb, CorruptAndForeignLinesAreSkippedWithAWarningNamingTheLine) {
    const KernelInstance probe = plan_network(conv_graph(), "net", kCuda, test_plan_options()).kernels[0];
    const std::string good = tuning_record_json(measured(probe, "gpu_staged", {{"rows", 4}}, 0.2));
    const std::string text =
        "{\"op\": \"conv2d\"}\n"                                                       // 1: no signature
        "{not json\n"                                                                  // 2
        "{\"op_signature\": \"a\", \"op\": \"deconv\"}\n"                              // 3: no such op
        "{\"op_signature\": \"a\", \"op\": \"conv2d\", \"knobs\": {\"rows\": 2.5}}\n"  // 4
        "[1, 2, 3]\n"                                                                  // 5: foreign
        + good.substr(0, good.size() / 2) + "\n"                                       // 6: cut short
        + good + "\n";                                                                 // 7: fine
    const TuningDbFile file = read_tuning_records(write(text), true);
    ASSERT_EQ(file.records.size(), 1u);
    EXPECT_EQ(file.records[0].where, path_ + ":7");
    ASSERT_EQ(file.warnings.size(), 6u);
    EXPECT_NE(file.warnings[0].find(path_ + ":1: skipped: the record has no \"op_signature\""), std::string::npos);
    EXPECT_NE(file.warnings[1].find(path_ + ":2: skipped: not a JSON object"), std::string::npos);
    EXPECT_NE(file.warnings[2].find(":3: skipped: no op 'deconv'"), std::string::npos);
    EXPECT_NE(file.warnings[3].find(":4: skipped: knob rows must be a whole number, not 2.5"), std::string::npos);
    EXPECT_NE(file.warnings[4].find(":5: skipped: not a JSON object"), std::string::npos);
    EXPECT_NE(file.warnings[5].find(":6: skipped"), std::string::npos);
    // The good line still applies.
    const KernelInstance k = plan_network(conv_graph(), "net", kCuda, with_records(read_tuning_db(path_))).kernels[0];
    EXPECT_EQ(k.choice.variant, "gpu_staged");
    EXPECT_EQ(k.variant_source, path_ + ":7");
}

TEST_F(TuningDb, ARecordThatDoesNotApplyIsAnErrorNamingItsLine) {
    const Graph graph = conv_graph();
    const std::string sig = plan_network(graph, "net", kCuda, test_plan_options()).kernels[0].op_signature_hash();
    const ChoiceOverrides records = read_tuning_db(
        write("{\"op_signature\": \"" + sig + "\", \"op\": \"conv2d\", \"knobs\": {\"stage_channels\": 4}}\n"));
    EXPECT_NE(plan_error(graph, kCuda, records)
                  .find(path_ + ":1: conv2d on family gpu, variant gpu_register_tile, has no knob 'stage_channels'"),
              std::string::npos);
}

TEST_F(TuningDb, TheFastestCurrentRecordWinsWhateverTheOrderOfTheLines) {
    const Graph graph = conv_graph();
    const KernelInstance probe = plan_network(graph, "net", kCuda, test_plan_options()).kernels[0];
    TuningRecord stale = measured(probe, "gpu_staged", {{"rows", 1}}, 0.01);  // fastest, but stale
    stale.schedule_version = "000000000000";
    TuningRecord rejected = measured(probe, "gpu_register_tile", {{"rows", 3}}, -1);
    rejected.rejected = true;
    rejected.reason = "crashed";
    std::vector<std::string> lines = {
        tuning_record_json(measured(probe, "gpu_register_tile", {{"rows", 8}}, 0.30)),
        tuning_record_json(measured(probe, "gpu_staged", {{"rows", 4}}, 0.20)),
        tuning_record_json(measured(probe, "gpu_register_tile", {{"rows", 2}}, 0.20)),  // ties with line 2
        tuning_record_json(stale), tuning_record_json(rejected)};
    std::sort(lines.begin(), lines.end());
    std::set<std::string> chosen;
    do {
        std::string text;
        for (const std::string &l : lines) text += l + "\n";
        write(text);
        TuningChoices choices;
        add_tuning_records(read_tuning_records(path_, true), choices);
        const KernelInstance k = plan_network(graph, "net", kCuda, with_records(choices.records)).kernels[0];
        chosen.insert(k.choice.variant + " rows=" + std::to_string(k.choice.knobs.get("rows")));
        ASSERT_EQ(choices.notes[probe.op_signature_hash()].size(), 1u);
        EXPECT_NE(choices.notes[probe.op_signature_hash()][0].find("schedule version 000000000000"), std::string::npos);
    } while (std::next_permutation(lines.begin(), lines.end()));
    // The tie goes to the smaller variant name, in every one of the 120 orders.
    EXPECT_EQ(chosen, (std::set<std::string>{"gpu_register_tile rows=2"}));
}

TEST_F(TuningDb, ALaterMeasurementOfAChoiceReplacesAnEarlierOneWhateverTheOrderOfItsKnobs) {
    const Graph graph = conv_graph();
    const KernelInstance probe = plan_network(graph, "net", kCuda, test_plan_options()).kernels[0];
    const auto chosen = [&](const std::vector<TuningRecord> &records) {
        std::string text;
        for (const TuningRecord &r : records) text += tuning_record_json(r) + "\n";
        write(text);
        const KernelInstance k = plan_network(graph, "net", kCuda, with_records(read_tuning_db(path_))).kernels[0];
        return k.choice.variant + " rows=" + std::to_string(k.choice.knobs.get("rows"));
    };
    const TuningRecord fast_once = measured(probe, "gpu_staged", {{"rows", 4}, {"channels", 8}}, 0.1);
    TuningRecord slower_later = measured(probe, "gpu_staged", {{"channels", 8}, {"rows", 4}}, 0.5);  // same choice
    const TuningRecord other = measured(probe, "gpu_register_tile", {{"rows", 2}}, 0.3);
    EXPECT_EQ(chosen({fast_once, other}), "gpu_staged rows=4");
    EXPECT_EQ(chosen({fast_once, other, slower_later}), "gpu_register_tile rows=2");
    TuningRecord rejected_later = slower_later;
    rejected_later.rejected = true;
    rejected_later.reason = "crashed";
    rejected_later.median_ms = -1;
    EXPECT_EQ(chosen({fast_once, rejected_later, other}), "gpu_register_tile rows=2");
}

TEST_F(TuningDb, StrongerDatabasesDecideFirstAndHandWrittenRecordsBeatMeasuredOnes) {
    const Graph graph = conv_graph();
    const KernelInstance probe = plan_network(graph, "net", kCuda, test_plan_options()).kernels[0];
    const std::string sig = probe.op_signature_hash();
    TuningChoices choices;
    add_tuning_records(
        read_tuning_records(write(tuning_record_json(measured(probe, "gpu_staged", {{"rows", 4}}, 0.5)) + "\n"), true),
        choices);
    add_tuning_records(
        read_tuning_records(write(tuning_record_json(measured(probe, "gpu_register_tile", {{"rows", 2}}, 0.1)) + "\n"),
                            true),
        choices);
    EXPECT_EQ(plan_network(graph, "net", kCuda, with_records(choices.records)).kernels[0].choice.variant, "gpu_staged");
    const ChoiceOverrides mixed =
        read_tuning_db(write("{\"op_signature\": \"" + sig + "\", \"op\": \"conv2d\", \"variant\": \"gpu_staged\"}\n" +
                             tuning_record_json(measured(probe, "gpu_register_tile", {{"rows", 2}}, 0.1)) + "\n"));
    EXPECT_EQ(plan_network(graph, "net", kCuda, with_records(mixed)).kernels[0].choice.variant, "gpu_staged");
}

// Records that transfer (compiler/record_transfer.h): a machine without records of its own, like
// the Zen 4 VM but for Zen 5's instructions and L1d, and records measured on the shipped Zen 4 and
// Sapphire Rapids descriptions' machines.
class RecordTransfer : public TuningDb {
  protected:
    static constexpr const char *kZen5 =
        "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-avx512_zen4-avx512_zen5-f16c-fma-sse41";
    static constexpr const char *kNearZen4 = "fma_units = 1\nl1d_kib = 48\nl2_kib = 1024\n";
    // A description of a machine: its Halide target and the lines after it.
    TargetDescription machine(const std::string &halide, const std::string &lines) {
        const std::string file = path_ + ".target";
        std::ofstream(file) << "halide_target = " << halide << "\n" << lines;
        TargetDescription d = resolve_target(file);
        std::filesystem::remove(file);
        return d;
    }
    KernelInstance probe(const std::string &halide) {
        return plan_network(conv_graph(), "net", halide, test_plan_options()).kernels[0];
    }
    // The records of `lines` as this machine takes them: exact ones, then transferred.
    TuningChoices choices_on(const TargetDescription &target, const std::vector<TuningRecord> &lines,
                             double farthest = schedules::kAlikeMachineDistance) {
        std::string text;
        for (const TuningRecord &r : lines) text += tuning_record_json(r) + "\n";
        const TuningDbFile file = read_tuning_records(write(text), true);
        TuningChoices choices;
        add_tuning_records(file, choices);
        add_transferred_records({file}, target, choices, farthest);
        return choices;
    }
    KernelInstance first_kernel(const TargetDescription &target, const TuningChoices &choices) {
        return plan_network(conv_graph(), "net", target.plan_target(), with_records(choices.records)).kernels[0];
    }
    const std::string spr_ = resolve_target("xeon-2core-avx512-spr").halide_target;
};

TEST_F(RecordTransfer, ALayerWithoutARecordTakesTheNearestMachinesAndSaysWhere) {
    const TargetDescription zen5 = machine(kZen5, std::string(kNearZen4) + "cores = 2\n");
    const TuningRecord from_zen4 = measured(probe(kZen4), "cpu_direct_channel_lanes",
                                            {{"rows", 7}, {"cols", 32}, {"task_tiles", 3}, {"pixel_stores", 0}}, 0.2);
    const TuningRecord from_spr = measured(probe(spr_), "cpu_direct_channel_lanes",
                                           {{"rows", 4}, {"cols", 16}, {"task_tiles", 5}, {"pixel_stores", 1}}, 0.1);
    const TuningChoices choices = choices_on(zen5, {from_spr, from_zen4});
    ASSERT_EQ(choices.transfers.size(), 1u);
    EXPECT_EQ(choices.transfers[0].name, "epyc-2core-avx512-zen4") << "an L1d apart, against FMA pipes, L2 and L3";
    EXPECT_NEAR(choices.transfers[0].distance, std::log2(48.0 / 32), 1e-9);
    EXPECT_EQ(choices.transfers[0].signatures, 1);
    const KernelInstance k = first_kernel(zen5, choices);
    EXPECT_EQ(k.choice.knobs.get("rows"), 7);
    EXPECT_EQ(k.choice.knobs.get("task_tiles"), 3) << "both machines have 2 cores";
    EXPECT_NE(k.variant_source.find("(transferred from epyc-2core-avx512-zen4)"), std::string::npos)
        << k.variant_source;
    // The Xeon alone is too far for compile and run; the tuner, which measures, takes it.
    EXPECT_TRUE(choices_on(zen5, {from_spr}).transfers.empty());
    const TuningChoices far = choices_on(zen5, {from_spr}, std::numeric_limits<double>::infinity());
    ASSERT_EQ(far.transfers.size(), 1u);
    EXPECT_EQ(far.transfers[0].name, "xeon-2core-avx512-spr");
    // A record of this machine's own always wins, however slow.
    const TuningRecord own = measured(probe(zen5.halide_target), "cpu_direct_channel_lanes",
                                      {{"rows", 5}, {"cols", 16}, {"task_tiles", 4}, {"pixel_stores", 1}}, 9.0);
    const KernelInstance mine = first_kernel(zen5, choices_on(zen5, {from_zen4, own}));
    EXPECT_EQ(mine.choice.knobs.get("rows"), 5);
    EXPECT_EQ(mine.variant_source.find("transferred"), std::string::npos) << mine.variant_source;
}

TEST_F(RecordTransfer, RecordsStayWithinTheirInstructionSetLevelAndOffGpus) {
    const TuningRecord from_zen4 = measured(probe(kZen4), "cpu_direct_channel_lanes",
                                            {{"rows", 7}, {"cols", 32}, {"task_tiles", 3}, {"pixel_stores", 0}}, 0.2);
    EXPECT_TRUE(choices_on(machine(kAvx2, ""), {from_zen4}).transfers.empty()) << "AVX-512 code on an AVX2 machine";
    EXPECT_TRUE(choices_on(resolve_target("arm-64-linux"), {from_zen4}).transfers.empty());
    EXPECT_TRUE(choices_on(resolve_target("cuda-h100"), {from_zen4}).transfers.empty());
    EXPECT_EQ(transfer_level(kZen4), "x86-avx512");
    EXPECT_EQ(transfer_level(kAvx2), "x86-avx2");
    EXPECT_EQ(transfer_level("x86-64-linux-sse41"), "x86-sse");
    EXPECT_EQ(transfer_level("arm-64-linux-arm_dot_prod"), "arm-64");
    EXPECT_EQ(transfer_level("x86-64-linux-cuda"), "");
    EXPECT_EQ(transfer_level("arm-64-linux-hvx-hvx_v68"), "");
}

TEST_F(RecordTransfer, TaskCutsForOtherCoresAndTilesTheRegistersCannotHoldAreLeftToTheDefaultRule) {
    const TuningRecord from_zen4 = measured(probe(kZen4), "cpu_direct_channel_lanes",
                                            {{"rows", 12}, {"cols", 32}, {"task_tiles", 3}, {"pixel_stores", 0}}, 0.2);
    const TargetDescription eight_cores = machine(kZen5, std::string(kNearZen4) + "cores = 8\n");
    const KernelInstance wide = first_kernel(eight_cores, choices_on(eight_cores, {from_zen4}));
    EXPECT_EQ(wide.choice.knobs.get("rows"), 12) << "the register tile transfers";
    const KernelInstance untuned = first_kernel(eight_cores, TuningChoices{});
    EXPECT_EQ(wide.choice.knobs.get("task_tiles"), untuned.choice.knobs.get("task_tiles"));
    EXPECT_EQ(knob_source(wide, "task_tiles"), "default rule");
    EXPECT_TRUE(std::any_of(wide.notes.begin(), wide.notes.end(), [](const std::string &n) {
        return n.find("task_tiles cut tasks for 2 cores; the default rule cuts them for 8") != std::string::npos;
    }));
    // 12 x 2 accumulators and their loads need 27 registers: a machine like Zen 4 but for its 16
    // registers, taking its records at any distance as the tuner does, refuses the tile.
    const TargetDescription small =
        machine(kZen5, "fma_units = 1\nl1d_kib = 32\nl2_kib = 1024\ncores = 2\nvector_registers = 16\n");
    const KernelInstance k =
        first_kernel(small, choices_on(small, {from_zen4}, std::numeric_limits<double>::infinity()));
    EXPECT_EQ(k.variant_source, "default rule");
    EXPECT_LE(k.choice.knobs.get("rows") * (k.choice.knobs.get("cols") / 16) + k.choice.knobs.get("cols") / 16 + 1, 16);
    EXPECT_TRUE(std::any_of(k.notes.begin(), k.notes.end(), [](const std::string &n) {
        return n.find("(transferred from epyc-2core-avx512-zen4): not taken here") != std::string::npos &&
               n.find("vector registers") != std::string::npos;
    })) << (k.notes.empty() ? "no notes" : k.notes[0]);
}

TEST(ScheduleVersion, EveryVariantOfEveryFamilyHasOneThatFollowsItsSources) {
    for (const auto &[family, space] : schedules::families())
        space.for_each_op([&](const std::string &op, const auto &op_space) {
            for (const auto &v : op_space.variants) {
                std::string version;
                EXPECT_NO_THROW(version = schedule_version(op, v.name)) << family << " " << op << " " << v.name;
                EXPECT_EQ(version.size(), 12u);
            }
        });
    // The version covers the variant's schedule, its algorithm and the helpers they include,
    // and nothing of unrelated variants.
    const std::vector<std::string> winograd = schedule_version_sources("conv2d", "cpu_winograd_f2");
    for (const char *covered :
         {"schedules/cpu/conv2d_winograd.h", "generators/conv2d_winograd.h", "schedules/cpu/gemm.h", "ops/winograd.h"})
        EXPECT_NE(std::find(winograd.begin(), winograd.end(), covered), winograd.end()) << covered;
    for (const char *unrelated : {"schedules/cpu/pooling.h", "schedules/gpu/conv2d_winograd.h", "generators/lrn.h"})
        EXPECT_EQ(std::find(winograd.begin(), winograd.end(), unrelated), winograd.end()) << unrelated;
    // The generator that builds the form's algorithm, the bindings that hand the knobs to the
    // schedule, and the spaces of the families that offer the variant.
    for (const char *declaring : {"generators/conv2d_generator.cc", "schedules/cpu/bindings.cc",
                                  "schedules/cpu/space.h", "schedules/x86/space.h", "schedules/arm/space.h"})
        EXPECT_NE(std::find(winograd.begin(), winograd.end(), declaring), winograd.end()) << declaring;
    for (const char *other_family : {"schedules/gpu/bindings.cc", "schedules/gpu/space.h", "schedules/hvx/space.h"})
        EXPECT_EQ(std::find(winograd.begin(), winograd.end(), other_family), winograd.end()) << other_family;
    const std::vector<std::string> staged = schedule_version_sources("conv2d", "gpu_staged");
    for (const char *declaring : {"schedules/gpu/space.h", "schedules/gpu/bindings.cc"})
        EXPECT_NE(std::find(staged.begin(), staged.end(), declaring), staged.end()) << declaring;
    EXPECT_EQ(std::find(staged.begin(), staged.end(), "schedules/cpu/space.h"), staged.end());
    EXPECT_NE(schedule_version("conv2d", "cpu_winograd_f2"), schedule_version("conv2d", "cpu_register_tile"));
    EXPECT_EQ(schedule_version("conv2d", "cpu_winograd_f2"), schedule_version("conv2d", "cpu_winograd_f4"));
    try {
        schedule_version("conv2d", "cpu_no_such_variant");
        ADD_FAILURE() << "a variant no family offers has a version";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("no family offers variant cpu_no_such_variant of conv2d"),
                  std::string::npos)
            << e.what();
    }
}

// Each variant is registered once with its typed properties, and each family's bindings.cc binds
// exactly the variants its spaces offer, each for the algorithm of its form; nothing is bound
// that no family offers.
TEST(Registry, EveryVariantIsBoundForItsFormAndEveryBindingIsOffered) {
    std::map<std::string, std::set<std::string>> offered;  // "op form" -> variants
    for (const auto &[family, space] : schedules::families())
        space.for_each_op([&](const std::string &op, const auto &op_space) {
            std::set<std::string> names;
            for (const auto &v : op_space.variants) {
                EXPECT_TRUE(names.insert(v.name).second) << family << " registers " << op << " " << v.name << " twice";
                EXPECT_FALSE(v.sources.empty()) << family << " " << op << " " << v.name;
                offered[op + " " + ops::field_value(v.form)].insert(v.name);
                // Pooling's generator reads and writes blocks whatever the variant (its Window
                // form), and so does the channel affine map's (its one algorithm).
                if (v.channel_blocks && op != "pooling" && op != "channel_affine") {
                    EXPECT_TRUE(v.form.is(ops::Algorithm::ChannelLanes) || v.form.is(ops::Algorithm::Winograd) ||
                                v.form.is_conv_gemm(ops::ConvGemmForm::ChannelLanes))
                        << v.name << " reads blocks its algorithm cannot";
                }
            }
        });
    // The bindings of each (algorithm, op) pair, and the forms whose variants they serve.
    const auto names = [](const auto &bindings) {
        std::set<std::string> n;
        for (const auto &[name, schedule] : bindings) n.insert(name);
        return n;
    };
    std::set<std::string> checked;
    const auto bound = [&](const std::vector<std::string> &keys, const std::set<std::string> &bindings) {
        checked.insert(keys.begin(), keys.end());
        std::set<std::string> want;
        for (const std::string &key : keys) want.insert(offered[key].begin(), offered[key].end());
        EXPECT_EQ(bindings, want) << keys.front();
    };
    bound({"conv2d direct"}, names(variant_bindings<Schedule<Conv2d, ops::Conv2dOp>>()));
    bound({"conv2d channel_lanes"}, names(variant_bindings<Schedule<Conv2dChannelLanes, ops::Conv2dOp>>()));
    bound({"conv2d winograd_f2x3", "conv2d winograd_f4x3", "conv2d winograd_f2x5"},
          names(variant_bindings<Schedule<Conv2dWinograd, ops::Conv2dOp>>()));
    bound({"conv2d gemm_fully_connected", "conv2d gemm_pixel_lanes", "conv2d gemm_channel_lanes"},
          names(variant_bindings<Schedule<Gemm, ops::Conv2dOp>>()));
    bound({"inner_product direct"}, names(variant_bindings<Schedule<InnerProduct, ops::InnerProductOp>>()));
    bound({"inner_product gemm_pixel_lanes"}, names(variant_bindings<Schedule<Gemm, ops::InnerProductOp>>()));
    bound({"gemm gemm_pixel_lanes"}, names(variant_bindings<Schedule<Gemm, ops::GemmOp>>()));
    bound({"pooling direct"}, names(variant_bindings<Schedule<Pooling, ops::PoolingOp>>()));
    bound({"pad direct"}, names(variant_bindings<Schedule<Pad, ops::PadOp>>()));
    bound({"lrn direct"}, names(variant_bindings<Schedule<LRN, ops::LRNOp>>()));
    bound({"softmax direct"}, names(variant_bindings<Schedule<Softmax, ops::SoftmaxOp>>()));
    bound({"concat direct"}, names(variant_bindings<Schedule<Concat, ops::ConcatOp>>()));
    bound({"rearrange direct"}, names(variant_bindings<Schedule<Rearrange, ops::RearrangeOp>>()));
    bound({"resize direct"}, names(variant_bindings<Schedule<Resize, ops::ResizeOp>>()));
    bound({"deconv2d direct"}, names(variant_bindings<Schedule<Deconv2d, ops::Deconv2dOp>>()));
    bound({"conv2d_int8 channel_lanes", "conv2d_int8 pair_sums"},
          names(variant_bindings<Schedule<Conv2dInt8, ops::Conv2dInt8Op>>()));
    bound({"conv2d_fp16 channel_lanes"}, names(variant_bindings<Schedule<Conv2dFp16, ops::Conv2dFp16Op>>()));
    // `unfused` is no kernel: the planner runs the pair as its two steps (ops/conv2d_pool.h).
    std::set<std::string> conv_pool = names(variant_bindings<Schedule<Conv2dPool, ops::Conv2dPoolOp>>());
    conv_pool.insert(ops::kUnfusedConvPool);
    bound({"conv2d_pool direct"}, conv_pool);
    bound({"relu direct"}, names(variant_bindings<Schedule<FlatOutput, ops::ReluOp>>()));
    bound({"activation direct"}, names(variant_bindings<Schedule<FlatOutput, ops::ActivationOp>>()));
    bound({"eltwise direct"}, names(variant_bindings<Schedule<FlatOutput, ops::EltwiseOp>>()));
    bound({"channel_affine direct"}, names(variant_bindings<Schedule<ChannelAffine, ops::ChannelAffineOp>>()));
    for (const auto &[key, variants] : offered)
        EXPECT_TRUE(variants.empty() || checked.count(key)) << key << ": a form this test does not check";
}

// Every knob setting in its domain either resolves or is refused with an error: no default rule
// may divide by a knob a stronger source set (the tuner tries such settings by the thousand).
template <typename Shape>
void fuzz_knobs(const schedules::OpSpace<Shape> &space, const Shape &shape, const schedules::TargetInfo &target,
                std::mt19937 &random, int *resolved, int *refused) {
    for (const auto &v : space.variants) {
        if (v.unsupported && !v.unsupported(shape).empty()) continue;
        for (int trial = 0; trial < 60; trial++) {
            ChoiceSettings s;
            s.source = "fuzz";
            s.exact = true;
            s.variant = v.name;
            for (const schedules::KnobSpec &k : v.knobs) {
                if (random() % 2) continue;
                const int log_max = int(std::log2(double(k.max - k.min) + 1));
                const int value = random() % 3 == 0
                                      ? k.min + int(random() % (k.max - k.min + 1))
                                      : std::min(k.max, k.min + int(random() % (1 << (random() % (log_max + 1)))));
                s.knobs.emplace_back(k.name, value);
            }
            try {
                resolve_choice(space, shape, target, {&s});
                (*resolved)++;
            } catch (const CompileError &) {
                (*refused)++;
            }
        }
    }
}

TEST(KnobFuzz, NoKnobSettingCrashesADefaultRule) {
    std::mt19937 random(11);
    int resolved = 0, refused = 0;
    const std::vector<std::pair<std::string, std::string>> targets = {
        {kAvx2, ""},
        {"x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41", ""},
        {"arm-64-linux", ""},
        {kAvx2, "cpu"},
        {kCuda, ""},
        {"x86-64-linux-opencl", ""},
        {"arm-64-linux-hvx-hvx_v68", "hvx"}};
    std::vector<ops::Conv2dShape> convs;
    for (const auto &[c, k, size, stride, pad, group, co] :
         std::vector<std::tuple<int, int, int, int, int, int, int>>{{3, 11, 227, 4, 0, 1, 96},
                                                                    {96, 5, 27, 1, 2, 2, 256},
                                                                    {256, 3, 13, 1, 1, 1, 384},
                                                                    {64, 1, 56, 1, 0, 1, 256},
                                                                    {32, 3, 14, 1, 1, 32, 32},
                                                                    {512, 7, 7, 1, 0, 1, 1000},
                                                                    {20, 5, 12, 1, 0, 1, 50}}) {
        ops::Conv2dShape s;
        s.batch = 2, s.in_channels = c, s.in_h = s.in_w = size, s.out_channels = co, s.kernel_h = s.kernel_w = k;
        s.stride_h = s.stride_w = stride, s.pad_h = s.pad_w = pad, s.group = group;
        s.out_h = s.out_w = (size + 2 * pad - k) / stride + 1;
        convs.push_back(s);
    }
    for (const auto &[halide, family] : targets) {
        PlanTarget plan_target;
        plan_target.halide_target = halide;
        plan_target.family = family;
        const schedules::TargetInfo t = resolve_plan_target(plan_target);
        const schedules::FamilySpace &f = schedules::families().at(t.family);
        for (const ops::Conv2dShape &s : convs) fuzz_knobs(f.op<ops::Conv2dShape>(), s, t, random, &resolved, &refused);
        for (const ops::InnerProductShape &s :
             {ops::InnerProductShape{1, 9216, 4096}, ops::InnerProductShape{64, 800, 500}})
            fuzz_knobs(f.op<ops::InnerProductShape>(), s, t, random, &resolved, &refused);
        for (const ops::GemmShape &s :
             {ops::GemmShape{128, 128, 128, false, false}, ops::GemmShape{7, 1000, 3, false, false}})
            fuzz_knobs(f.op<ops::GemmShape>(), s, t, random, &resolved, &refused);
        for (const ops::SoftmaxShape &s : {ops::SoftmaxShape{1, 1000, 20}, ops::SoftmaxShape{169, 21, 1}})
            fuzz_knobs(f.op<ops::SoftmaxShape>(), s, t, random, &resolved, &refused);
    }
    // Both outcomes happen, so the fuzz reaches the default rules and the limits alike.
    EXPECT_GT(resolved, 500);
    EXPECT_GT(refused, 500);
}

}  // namespace
}  // namespace cortado::testing
