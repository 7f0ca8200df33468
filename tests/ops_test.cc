// Every op of the vertical slice, compiled for the host and compared blob by blob with the
// double-precision reference, on fixed edge cases and on fresh random shapes each run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "Halide.h"
#include "compiler/gemm_kernel.h"
#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"
#include "compiler/temporary_directory.h"
#include "compiler/toolchain.h"
#include "frontend/fusion.h"
#include "frontend/shape_inference.h"
#include "schedules/cpu/conv2d_winograd_space.h"
#include "schedules/families.h"
#include "schedules/gpu/conv2d_winograd_space.h"
#include "tests/network_harness.h"
#include "tests/scoped_knobs.h"

namespace cortado::testing {
namespace {

std::string input_header(const Shape &shape) {
    std::string text = "name: \"op\"\ninput: \"data\"\ninput_shape {";
    for (int64_t d : shape) text += " dim: " + std::to_string(d);
    return text + " }\n";
}

BlobCheck expect_matches_reference(const std::string &layers, const Shape &input_shape, const std::string &what) {
    const uint64_t seed = test_seed();
    const std::string text = input_header(input_shape) + layers;
    SCOPED_TRACE(what + ", seed " + std::to_string(seed) + "\n" + text);
    const BlobCheck check = check_network_text(text, what, ImportOptions{}, seed);
    EXPECT_GT(check.blobs_checked, 1);
    EXPECT_LE(check.worst_error, check.tolerance) << "worst blob: " << check.worst_blob;
    return check;
}

std::string layer(const std::string &name, const std::string &type, const std::string &bottom, const std::string &top,
                  const std::string &params = "") {
    std::ostringstream text;
    text << "layer { name: \"" << name << "\" type: \"" << type << "\"";
    std::stringstream bottoms(bottom);
    for (std::string b; bottoms >> b;) text << " bottom: \"" << b << "\"";
    text << " top: \"" << top << "\" " << params << " }\n";
    return text.str();
}

std::string conv_params(int num_output, const std::string &extra) {
    return "convolution_param { num_output: " + std::to_string(num_output) +
           " weight_filler { type: \"gaussian\" std: 0.3 } bias_filler { type: \"uniform\" min: -1 max: 1 } " + extra +
           " }";
}

TEST(Convolution, StridePadGroupDilationEdgeCases) {
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(8, "kernel_size: 3 pad: 1")),
                             {1, 5, 9, 11}, "3x3 pad 1, non-square");
    expect_matches_reference(layer("c", "Convolution", "data", "c",
                                   conv_params(6, "kernel_h: 5 kernel_w: 3 stride_h: 2 stride_w: 3 pad_h: 2 pad_w: 1")),
                             {2, 3, 17, 13}, "rectangular kernel, _h/_w strides and pads");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(4, "kernel_size: 3 pad_w: 1")),
                             {1, 3, 7, 6}, "pad_w alone (pad_h 0, as in Caffe)");
    expect_matches_reference(layer("c", "Convolution", "data", "c",
                                   conv_params(4, "kernel_size: 3 kernel_size: 1 stride: 2 stride: 1 pad: 0 pad: 2")),
                             {1, 3, 9, 6}, "per-axis kernel, stride and pad lists");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c", conv_params(12, "kernel_size: 3 group: 4 bias_term: false")),
        {1, 8, 7, 7}, "group 4, no bias");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c", conv_params(5, "kernel_size: 3 dilation: 2 pad: 2")), {1, 3, 10, 9},
        "dilation 2");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c", conv_params(5, "kernel_size: 3 dilation: 0 pad: 1")), {1, 3, 8, 7},
        "dilation 0 (Caffe accepts it: every tap reads the pixel under the origin)");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(7, "kernel_size: 5")), {1, 4, 5, 5},
                             "1x1 output");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(3, "kernel_size: 1")), {1, 20, 3, 2},
                             "1x1 kernel, fewer outputs than a channel block");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(16, "kernel_size: 11 stride: 4")) +
                                 layer("r", "ReLU", "c", "c"),
                             {1, 3, 35, 35}, "AlexNet-like stride 4 with fused ReLU");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(9, "kernel_size: 2 stride: 2")) +
                                 layer("r", "ReLU", "c", "c", "relu_param { negative_slope: 0.2 }"),
                             {1, 2, 6, 40}, "fused leaky ReLU");
}

bool gpu_test_target() { return Halide::Target(resolve_target(test_target()).halide_target).has_gpu_feature(); }
bool cpu_test_target() { return !gpu_test_target() && resolve_target(test_target()).schedule_family != "hvx"; }
// host-generic is the generic CPU family on the host's own instruction set. Its variants are the
// host family's (schedules/cpu), sized for 16 vector registers: where the host has 16 (AVX2), a
// variant forced by name with its knobs compiles the kernels the host suite checks; only the
// generic direct register tile and the default choices differ, and those it checks here.
bool forced_variants_checked_by_the_host_suite() {
    static const bool checked = [] {
        if (test_target() != "host-generic") return false;
        const PlanTarget host = resolve_target("host").plan_target();  // detects the host once
        return host.machine && host.machine->vector_registers == 16;
    }();
    return checked;
}

// An inference BatchNorm (statistics from the filler), and a Scale with a bias whose factors stay
// away from 0: the per-channel affine pair of ResNet and DenseNet.
std::string batch_norm(const std::string &name, const std::string &bottom, const std::string &top) {
    return layer(name, "BatchNorm", bottom, top,
                 "batch_norm_param { use_global_stats: true } "
                 "param { lr_mult: 0 } param { lr_mult: 0 } param { lr_mult: 0 }");
}
std::string biased_scale(const std::string &name, const std::string &bottom, const std::string &top) {
    return layer(name, "Scale", bottom, top,
                 "scale_param { bias_term: true filler { type: \"uniform\" min: 0.5 max: 2 } }");
}

// The direct variants' edge shapes, under the knobs in force (`knobs` names them): a short last
// panel (37 outputs), pixel tiles across rows and images, a rectangular strided kernel without
// bias, `grouped_outputs` in 2 groups with dilation, a map smaller than one tile.
void expect_direct_edge_shapes(const std::string &knobs, int grouped_outputs) {
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(37, "kernel_size: 3 pad: 1")) +
                                 layer("r", "ReLU", "c", "c", "relu_param { negative_slope: 0.1 }"),
                             {2, 6, 6, 5}, knobs + ": 37 outputs, 2 images of 30 pixels, leaky ReLU");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c",
              conv_params(6, "kernel_h: 5 kernel_w: 3 stride_h: 2 stride_w: 3 pad_h: 2 pad_w: 1 bias_term: false")),
        {1, 3, 17, 13}, knobs + ": rectangular kernel, strides and pads, no bias");
    expect_matches_reference(layer("c", "Convolution", "data", "c",
                                   conv_params(grouped_outputs, "kernel_size: 3 group: 2 dilation: 2 pad: 1")),
                             {1, 8, 9, 7},
                             knobs + ": 2 groups of " + std::to_string(grouped_outputs / 2) + " outputs, dilation 2");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(5, "kernel_size: 1 stride: 2")),
                             {1, 3, 3, 4}, knobs + ": 4 pixels, fewer than a tile");
}

// Both CPU direct variants, forced, on edge shapes: the channel-lanes tile with a short last
// panel (37 outputs), pixel tiles across rows and images, maps smaller than one tile, groups
// whose channels fill whole panels, and single-pixel tiles, its NCHW output stored in vectors of
// pixels (the default) and pixel by pixel (the shipped records' pixel_stores=0); the output-x
// register tile that stays for groups no vector of channels fits.
TEST(Convolution, CpuDirectVariantsForcedOnEdgeShapes) {
    if (!cpu_test_target())
        GTEST_SKIP() << "the direct variants forced here are CPU schedules; " << test_target() << " has none";
    for (const char *knobs :
         {"conv2d.variant=cpu_direct_channel_lanes,conv2d.rows=3,conv2d.task_tiles=3",
          "conv2d.variant=cpu_direct_channel_lanes,conv2d.rows=3,conv2d.task_tiles=2,conv2d.pixel_stores=0",
          "conv2d.variant=cpu_direct_channel_lanes,conv2d.rows=1", "conv2d.variant=cpu_register_tile"}) {
        const ScopedKnobs forced(knobs);
        expect_direct_edge_shapes(knobs, 64);
    }
}

// The GPU channel-lanes variant, forced, on the CPU variant's edge shapes: a short last panel
// (37 outputs), pixel tiles across rows and images and past the last pixel tile of a block,
// groups whose channels fill whole panels, maps smaller than one tile; with the default tile
// and with small odd ones; the input channels split into shares, some short or empty.
TEST(Convolution, GpuChannelLanesForcedOnEdgeShapes) {
    if (!gpu_test_target())
        GTEST_SKIP() << "the channel-lanes variant forced here is a GPU schedule; " << test_target() << " is no GPU";
    for (const char *knobs :
         {"conv2d.variant=gpu_direct_channel_lanes",
          "conv2d.variant=gpu_direct_channel_lanes,conv2d.channels=2,conv2d.panel=6,conv2d.rows=3,conv2d.threads_q=3",
          "conv2d.variant=gpu_direct_channel_lanes,conv2d.channels=1,conv2d.panel=8,conv2d.rows=1",
          "conv2d.variant=gpu_direct_channel_lanes,conv2d.split_k=3,conv2d.rows=5"}) {
        const ScopedKnobs forced(knobs);
        expect_direct_edge_shapes(knobs, 48);
        expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(16, "kernel_size: 11 stride: 4")),
                                 {2, 3, 35, 35}, std::string(knobs) + ": 11x11 stride 4, batch 2");
        expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(64, "kernel_size: 3 pad: 1")),
                                 {2, 40, 9, 9},
                                 std::string(knobs) + ": 40 input channels (3 shares of 14, the last short)");
    }
}

// Winograd F(2x2, 3x3), F(4x4, 3x3) and F(2x2, 5x5) of the target's family (CPU or GPU), forced,
// checked against their own tolerances: maps that are not whole tiles, padding 0 and 1 (2 for
// 5x5), batch 2, more output channels than a register tile, fused activations, no bias, groups;
// on the GPU also a tile of odd sizes whose blocks shift inwards, and the input channels split
// into shares (some short).
TEST(Convolution, WinogradVariantsForced) {
    if (!cpu_test_target() && !gpu_test_target()) GTEST_SKIP() << test_target() << " has no Winograd variant";
    if (forced_variants_checked_by_the_host_suite())
        GTEST_SKIP() << "the Winograd variants forced here compile the host suite's kernels";
    const std::string family = gpu_test_target() ? "gpu" : "cpu";
    std::vector<std::string> forced_knobs;
    // On the CPU the shipped records store the products tile-innermost (channel_products=0); a
    // new choice stores them channel-innermost (the default).
    const std::string stored = gpu_test_target() ? "" : ",conv2d.channel_products=0";
    for (const char *m : {"f2", "f4"}) forced_knobs.push_back("conv2d.variant=" + family + "_winograd_" + m + stored);
    if (gpu_test_target()) {
        forced_knobs.push_back(
            "conv2d.variant=gpu_winograd_f2,conv2d.cols=3,conv2d.rows=5,conv2d.threads_x=3,conv2d.threads_y=2");
        forced_knobs.push_back("conv2d.variant=gpu_winograd_f4,conv2d.k_block=24,conv2d.k_unroll=1");
    } else {
        // The products stored channel-innermost and transformed per image and block of channels
        // (or per group): blocks of one register tile, and of several with a short last one.
        forced_knobs.push_back("conv2d.variant=cpu_winograd_f2");
        forced_knobs.push_back(
            "conv2d.variant=cpu_winograd_f4,conv2d.channel_products=1,conv2d.rows=3,conv2d.cols=16,"
            "conv2d.col_block=32");
        // The input transform stored one image at a time (at batch 2, two chunks).
        forced_knobs.push_back("conv2d.variant=cpu_winograd_f2,conv2d.batch_chunk=1");
    }
    for (const std::string &variant : forced_knobs) {
        const ScopedKnobs forced(variant.c_str());
        expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(37, "kernel_size: 3 pad: 1")) +
                                     layer("r", "ReLU", "c", "c", "relu_param { negative_slope: 0.1 }"),
                                 {2, 5, 9, 11}, std::string(variant) + ": 37 outputs, 9x11 map, batch 2, leaky ReLU");
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(9, "kernel_size: 3 bias_term: false")), {1, 4, 7, 6},
            std::string(variant) + ": no padding, 5x4 map, no bias");
        expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(24, "kernel_size: 3 pad: 1")) +
                                     layer("r", "ReLU", "c", "c"),
                                 {1, 64, 14, 14}, std::string(variant) + ": 64 input channels, 14x14");
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(192, "kernel_size: 3 pad: 1 group: 2")), {2, 10, 7, 9},
            std::string(variant) + ": 2 groups of 96 outputs, batch 2");
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(40, "kernel_size: 3 pad: 1 group: 2")), {2, 6, 9, 8},
            std::string(variant) + ": 2 groups of 20 outputs (not whole vectors), batch 2");
    }
    // F(2x2, 5x5): the same kinds of shapes with 5x5 kernels, padding 0 and 2. The plan's
    // tolerance is the variant's, so it did not fall back to an exact one (compared as floats: on
    // the ARM64 target the checker reads it back from text).
    std::vector<std::string> five_by_five = {"conv2d.variant=" + family + "_winograd_f2_5x5" + stored};
    if (gpu_test_target())
        five_by_five.push_back(
            "conv2d.variant=gpu_winograd_f2_5x5,conv2d.cols=3,conv2d.rows=5,conv2d.threads_x=3,conv2d.threads_y=2,"
            "conv2d.k_block=24");
    else
        five_by_five.push_back("conv2d.variant=cpu_winograd_f2_5x5");
    const float tolerance =
        gpu_test_target() ? schedules::gpu::kGpuWinogradF2K5Tolerance : schedules::cpu::kWinogradF2K5Tolerance;
    for (const std::string &knobs : five_by_five) {
        const ScopedKnobs forced(knobs.c_str());
        EXPECT_FLOAT_EQ(
            expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(37, "kernel_size: 5 pad: 2")) +
                                         layer("r", "ReLU", "c", "c", "relu_param { negative_slope: 0.1 }"),
                                     {2, 5, 9, 11}, std::string(knobs) + ": 37 outputs, 9x11 map, batch 2, leaky ReLU")
                .tolerance,
            tolerance);
        EXPECT_FLOAT_EQ(expect_matches_reference(
                            layer("c", "Convolution", "data", "c", conv_params(9, "kernel_size: 5 bias_term: false")),
                            {1, 4, 10, 9}, std::string(knobs) + ": no padding, 6x5 map, no bias")
                            .tolerance,
                        tolerance);
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(64, "kernel_size: 5 pad: 2 group: 2")) +
                layer("r", "ReLU", "c", "c"),
            {2, 48, 13, 13}, std::string(knobs) + ": 2 groups of 24 inputs and 32 outputs, 13x13, batch 2");
    }
}

// Channel-blocked tensors between convolutions (kernel_plan.cc), each chain forced onto one
// variant that reads and writes blocks: blocked inputs with and without padding, strides,
// groups, 1x1 and 5x5 layers, maps that are not whole tiles, batch 2, residual sums fused into
// the convolutions that read their residual blocked, stride-2 1x1 shortcuts, MAX, AVE and global
// poolings between them, depthwise layers, channel affine maps (squeeze-and-excitation's scale,
// BatchNorm), channel counts that take blocks of half a vector. Every blob, blocked
// ones included (the runtime shows them as NCHW), matches the reference, and the plan did block.
TEST(Convolution, ChannelBlockedChainsMatchTheReference) {
    if (!cpu_test_target()) GTEST_SKIP() << test_target() << " keeps every activation NCHW";
    if (forced_variants_checked_by_the_host_suite())
        GTEST_SKIP() << "the blocked variants forced here compile the host suite's kernels";
    const auto relu = [](const std::string &top) { return layer("r" + top, "ReLU", top, top); };
    const std::string direct =
        layer("c1", "Convolution", "data", "c1", conv_params(48, "kernel_size: 3 pad: 1")) + relu("c1") +
        layer("c2", "Convolution", "c1", "c2", conv_params(32, "kernel_size: 1")) +
        layer("c3", "Convolution", "c2", "c3", conv_params(16, "kernel_size: 3 stride: 2 pad: 1")) +
        layer("c4", "Convolution", "c3", "c4", conv_params(32, "kernel_size: 3")) + relu("c4");
    const std::string pointwise = layer("c1", "Convolution", "data", "c1", conv_params(48, "kernel_size: 1")) +
                                  relu("c1") +
                                  layer("c2", "Convolution", "c1", "c2", conv_params(32, "kernel_size: 1")) +
                                  layer("c3", "Convolution", "c2", "c3", conv_params(16, "kernel_size: 1"));
    // Residual blocks as ResNet's: each sum fuses into the convolution after the one it adds,
    // reading its residual blocked; a stride-2 1x1 shortcut; the last convolution reads the
    // second sum, so every sum's tensors are blocked but the network's output is not.
    const auto residual = [&](const std::string &k3) {
        return layer("c1", "Convolution", "data", "c1", conv_params(32, "kernel_size: 1")) + relu("c1") +
               layer("c2", "Convolution", "c1", "c2", conv_params(32, k3 + " pad: " + (k3.back() == '3' ? "1" : "0"))) +
               layer("s1", "Eltwise", "c2 c1", "s1") + relu("s1") +
               layer("c3", "Convolution", "s1", "c3", conv_params(64, "kernel_size: 1 stride: 2")) +
               layer("c4", "Convolution", "s1", "c4", conv_params(64, "kernel_size: 1 stride: 2")) +
               layer("s2", "Eltwise", "c4 c3", "s2") + relu("s2") +
               layer("c5", "Convolution", "s2", "c5", conv_params(16, "kernel_size: 1"));
    };
    // Poolings between blocked convolutions: MAX with padding and a window past the image's end,
    // AVE counting padding, and a global AVE that reads blocks and writes the NCHW output.
    const std::string pooled =
        layer("c1", "Convolution", "data", "c1", conv_params(32, "kernel_size: 3 pad: 1")) + relu("c1") +
        layer("p1", "Pooling", "c1", "p1", "pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 }") +
        layer("c2", "Convolution", "p1", "c2", conv_params(32, "kernel_size: 1")) +
        layer("p2", "Pooling", "c2", "p2", "pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 }") +
        layer("c3", "Convolution", "p2", "c3", conv_params(32, "kernel_size: 3 pad: 1")) +
        layer("p3", "Pooling", "c3", "p3", "pooling_param { pool: AVE global_pooling: true }");
    const auto winograd = [&](int k) {
        const std::string kernel = "kernel_size: " + std::to_string(k);
        const std::string pad = " pad: " + std::to_string(k / 2);
        return layer("c1", "Convolution", "data", "c1", conv_params(32, kernel + pad)) + relu("c1") +
               layer("c2", "Convolution", "c1", "c2", conv_params(64, kernel + pad + " group: 2")) +
               layer("c3", "Convolution", "c2", "c3", conv_params(16, kernel)) + relu("c3");
    };
    // A shortcut summed by a 3x3 convolution that writes over it (its last reader).
    const std::string shortcut =
        layer("c0", "Convolution", "data", "c0", conv_params(32, "kernel_size: 1")) + relu("c0") +
        layer("c1", "Convolution", "c0", "c1", conv_params(32, "kernel_size: 3 pad: 1")) + relu("c1") +
        layer("c2", "Convolution", "c1", "c2", conv_params(32, "kernel_size: 3 pad: 1")) +
        layer("t", "Eltwise", "c2 c0", "t") + relu("t") +
        layer("c3", "Convolution", "t", "c3", conv_params(16, "kernel_size: 1"));
    // MobileNet's inverted residuals: depthwise layers between 1x1 ones, stride 1 and 2, one
    // with a fused ReLU, every tensor between them blocked.
    const std::string depthwise =
        layer("c1", "Convolution", "data", "c1", conv_params(32, "kernel_size: 1")) + relu("c1") +
        layer("d1", "Convolution", "c1", "d1", conv_params(32, "kernel_size: 3 pad: 1 group: 32")) + relu("d1") +
        layer("c2", "Convolution", "d1", "c2", conv_params(48, "kernel_size: 1")) +
        layer("d2", "Convolution", "c2", "d2", conv_params(48, "kernel_size: 5 stride: 2 pad: 2 group: 48")) +
        layer("c3", "Convolution", "d2", "c3", conv_params(16, "kernel_size: 1"));
    // Squeeze-and-excitation (EfficientNet's): the depthwise output scaled per image and channel
    // by a Scale that reads it blocked; a BatchNorm + Scale + ReLU after a pooling, one channel
    // affine map over blocks; a last BatchNorm (b4) that reads blocks and writes the NCHW output.
    const std::string excited =
        layer("c1", "Convolution", "data", "c1", conv_params(32, "kernel_size: 1")) + relu("c1") +
        layer("d1", "Convolution", "c1", "d1", conv_params(32, "kernel_size: 3 pad: 1 group: 32")) + relu("d1") +
        layer("g1", "Pooling", "d1", "g1", "pooling_param { pool: AVE global_pooling: true }") +
        layer("f1", "Convolution", "g1", "f1", conv_params(8, "kernel_size: 1")) + relu("f1") +
        layer("f2", "Convolution", "f1", "f2", conv_params(32, "kernel_size: 1")) + layer("sg", "Sigmoid", "f2", "f2") +
        layer("fl", "Flatten", "f2", "fl") + layer("se", "Scale", "d1 fl", "se", "scale_param { axis: 0 }") +
        layer("c2", "Convolution", "se", "c2", conv_params(48, "kernel_size: 1")) +
        layer("p2", "Pooling", "c2", "p2", "pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 }") +
        batch_norm("bn", "p2", "bn") + biased_scale("sc", "bn", "sc") + relu("sc") +
        layer("c3", "Convolution", "sc", "c3", conv_params(16, "kernel_size: 1")) +
        layer("p4", "Pooling", "c3", "p4", "pooling_param { pool: AVE kernel_size: 2 stride: 1 }") +
        batch_norm("b4", "p4", "b4");
    // Concatenations written in place and blocked with their inputs: SqueezeNet's fire module (a
    // 1x1 and a 3x3 expansion side by side, a pooling reading the concatenation) and DenseNet's
    // growing concatenations (one placed in the next, a BatchNorm + Scale + ReLU and a 1x1
    // convolution reading one). At batch 2 each slice repeats in every image.
    const std::string fire =
        layer("z1", "Convolution", "data", "z1", conv_params(16, "kernel_size: 1")) + relu("z1") +
        layer("e1", "Convolution", "z1", "e1", conv_params(32, "kernel_size: 1")) + relu("e1") +
        layer("e3", "Convolution", "z1", "e3", conv_params(32, "kernel_size: 3 pad: 1")) + relu("e3") +
        layer("fire", "Concat", "e1 e3", "fire") +
        layer("q1", "Pooling", "fire", "q1", "pooling_param { pool: MAX kernel_size: 3 stride: 2 }") +
        layer("z2", "Convolution", "q1", "z2", conv_params(16, "kernel_size: 1"));
    const std::string dense =
        layer("c0", "Convolution", "data", "c0", conv_params(32, "kernel_size: 3 pad: 1")) + relu("c0") +
        layer("g1", "Convolution", "c0", "g1", conv_params(16, "kernel_size: 3 pad: 1")) +
        layer("k1", "Concat", "c0 g1", "k1") + batch_norm("n1", "k1", "n1") + biased_scale("a1", "n1", "a1") +
        relu("a1") + layer("g2", "Convolution", "a1", "g2", conv_params(16, "kernel_size: 1")) +
        layer("k2", "Concat", "k1 g2", "k2") +
        layer("c3", "Convolution", "k2", "c3", conv_params(32, "kernel_size: 1"));
    // Channels that are no whole vectors of 16 (MobileNetV3's, EfficientNet's): blocks of half a
    // vector on 16-lane targets, a residual chain and a pooling among them.
    const std::string narrow =
        layer("c1", "Convolution", "data", "c1", conv_params(24, "kernel_size: 1")) + relu("c1") +
        layer("e1", "Convolution", "c1", "e1", conv_params(24, "kernel_size: 3 pad: 1 group: 24")) + relu("e1") +
        layer("c2", "Convolution", "e1", "c2", conv_params(24, "kernel_size: 1")) +
        layer("s1", "Eltwise", "c2 c1", "s1") +
        layer("e2", "Convolution", "s1", "e2", conv_params(24, "kernel_size: 5 stride: 2 pad: 2 group: 24")) +
        layer("q2", "Pooling", "e2", "q2", "pooling_param { pool: MAX kernel_size: 3 stride: 1 pad: 1 }") +
        layer("c3", "Convolution", "q2", "c3", conv_params(40, "kernel_size: 1"));
    const struct {
        const char *knobs;
        std::string layers;
        Shape input;
    } chains[] = {
        {"conv2d.variant=cpu_direct_channel_lanes", direct, {2, 16, 9, 11}},
        {"conv2d.variant=cpu_gemm_1x1_channel_lanes", pointwise, {2, 32, 7, 9}},
        // Tasks that end past the last pixel and the last block of channels; c1's tiles stored
        // from registers (its 32 input channels are one K block), c2's through the accumulator
        // (48 in two).
        {"conv2d.variant=cpu_gemm_1x1_channel_lanes,conv2d.rows=5,conv2d.row_block=10,conv2d.cols=16,"
         "conv2d.col_block=32,conv2d.k_block=32",
         pointwise,
         {2, 32, 7, 9}},
        {"conv2d.variant=cpu_gemm_1x1_channel_lanes", residual("kernel_size: 1"), {2, 16, 9, 11}},
        {"conv2d.variant=cpu_direct_channel_lanes", residual("kernel_size: 3"), {2, 16, 9, 11}},
        {"conv2d.variant=cpu_direct_channel_lanes", pooled, {2, 16, 13, 10}},
        {"conv2d.variant=cpu_winograd_f2,conv2d.channel_products=1", winograd(3), {2, 16, 9, 11}},
        {"conv2d.variant=cpu_winograd_f4,conv2d.channel_products=1,conv2d.col_block=64", winograd(3), {1, 16, 14, 14}},
        // Transforms stored two images at a time, the last chunk short.
        {"conv2d.variant=cpu_winograd_f4,conv2d.channel_products=1,conv2d.batch_chunk=2", winograd(3), {3, 16, 10, 9}},
        {"conv2d.variant=cpu_winograd_f2_5x5,conv2d.channel_products=1", winograd(5), {2, 16, 10, 9}},
        {"conv2d.variant=cpu_winograd_f4,conv2d.channel_products=1", shortcut, {2, 16, 9, 11}},
        {"conv2d.variant=cpu_winograd_f2,conv2d.channel_products=1", shortcut, {2, 16, 9, 11}},
        {"conv2d.variant=cpu_direct_channel_lanes", shortcut, {2, 16, 9, 11}},
        {"conv2d.variant=cpu_depthwise_channel_lanes,conv2d.task_tiles=2", depthwise, {2, 16, 9, 11}},
        {"conv2d.variant=cpu_depthwise_channel_lanes", excited, {2, 16, 10, 9}},
        {"conv2d.variant=cpu_depthwise_channel_lanes", narrow, {2, 16, 9, 11}},
        {"conv2d.variant=cpu_direct_channel_lanes", fire, {2, 16, 9, 11}},
        {"conv2d.variant=cpu_direct_channel_lanes", dense, {2, 16, 9, 11}},
    };
    for (const auto &chain : chains) {
        const ScopedKnobs forced(chain.knobs);
        const BlobCheck check = expect_matches_reference(chain.layers, chain.input, chain.knobs);
        EXPECT_GE(check.blocked_tensors, 2) << chain.knobs << ": the chain was not blocked";
        if (chain.layers.find("\"s2\"") != std::string::npos) {
            EXPECT_EQ(check.blocked_tensors, 4) << chain.knobs << ": c1, the sums' and c3, not c5's output";
        }
        // The direct convolution recomputes its last tile of pixels over the one before
        // (ShiftInwards), so it never writes over its residual: done, that corrupted the sum.
        const bool once = std::string(chain.knobs).find("cpu_direct_channel_lanes") == std::string::npos;
        if (chain.layers.find("\"t\"") != std::string::npos) {
            EXPECT_EQ(check.sums_over_residuals, once ? 1 : 0) << chain.knobs << ": c2+t writes over c0";
        }
        if (chain.layers.find("\"s2\"") != std::string::npos) {
            EXPECT_EQ(check.sums_over_residuals, once ? 1 : 0)
                << chain.knobs << ": c4+s2 over c3, not c2+s1 (c2 reads c1)";
        }
        if (chain.layers.find("\"q2\"") != std::string::npos) {
            EXPECT_EQ(check.blocked_tensors, 5) << chain.knobs << ": c1, e1, s1, e2 and q2";
        }
        if (chain.layers.find("\"se\"") != std::string::npos) {
            EXPECT_EQ(check.blocked_tensors, 8)
                << chain.knobs << ": every tensor but the input, the excitation's and b4";
        }
        if (chain.layers.find("\"d2\"") != std::string::npos) {
            EXPECT_EQ(check.blocked_tensors, 4) << chain.knobs << ": every tensor but the input and c3's output";
        }
        if (chain.layers.find("\"fire\"") != std::string::npos) {
            EXPECT_EQ(check.blocked_tensors, 5) << chain.knobs << ": z1, e1, e3, the concatenation and q1";
        }
        if (chain.layers.find("\"k2\"") != std::string::npos) {
            EXPECT_EQ(check.blocked_tensors, 6) << chain.knobs << ": c0, g1, both concatenations, a1 and g2";
        }
        if (chain.layers.find("\"p3\"") != std::string::npos) {
            EXPECT_EQ(check.blocked_tensors, 5) << chain.knobs << ": every tensor but the input and p3";
        }
        const ScopedLayouts nchw(ActivationLayouts::Nchw);
        EXPECT_EQ(expect_matches_reference(chain.layers, chain.input, std::string(chain.knobs) + ", NCHW only")
                      .blocked_tensors,
                  0);
    }
}

// Depthwise layers (one input channel per group), by the family's default and with its
// depthwise variants' knobs forced small and odd: strides 1 and 2, maps narrower than a vector
// and not a whole number of row tiles, no padding, two outputs per input channel, dilation,
// batch 2, fused leaky ReLU, no bias; and MobileNetV2's 7x7 and 14x14 stride-2 shapes. The
// channel-lanes variant reads and writes NCHW here (its blocked chains: above), on channel counts
// that are not whole vectors or panels; it cannot compute two outputs per channel, which then
// take the default.
TEST(Convolution, DepthwiseShapes) {
    std::vector<std::string> forced = {""};
    if (cpu_test_target() && !forced_variants_checked_by_the_host_suite()) {
        forced.push_back("conv2d.variant=cpu_depthwise,conv2d.vectors_x=1,conv2d.rows=3,conv2d.task_rows=5");
        forced.push_back("conv2d.variant=cpu_depthwise,conv2d.vectors_x=3,conv2d.rows=1,conv2d.task_planes=3");
        forced.push_back("conv2d.variant=cpu_depthwise_channel_lanes,conv2d.rows=5,conv2d.task_tiles=3");
        forced.push_back(
            "conv2d.variant=cpu_depthwise_channel_lanes,conv2d.rows=4,conv2d.task_tiles=2,conv2d.pixel_stores=0");
        forced.push_back("conv2d.variant=cpu_depthwise_channel_lanes,conv2d.cols=32,conv2d.rows=2,conv2d.task_tiles=1");
    }
    if (gpu_test_target())
        forced.push_back(
            "conv2d.variant=gpu_depthwise,conv2d.threads=64,conv2d.rows=3,conv2d.cols=3,conv2d.channels=3");
    for (const std::string &knobs : forced) {
        const ScopedKnobs force(knobs.c_str());
        const std::string what = knobs.empty() ? "default" : knobs;
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(6, "kernel_size: 3 pad: 1 group: 6")) +
                layer("r", "ReLU", "c", "c", "relu_param { negative_slope: 0.1 }"),
            {2, 6, 13, 19}, what + ": 3x3 stride 1, 13x19, batch 2, leaky ReLU");
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(5, "kernel_size: 3 stride: 2 pad: 1 group: 5")),
            {1, 5, 15, 22}, what + ": 3x3 stride 2, odd and even maps");
        expect_matches_reference(layer("c", "Convolution", "data", "c",
                                       conv_params(8, "kernel_size: 5 group: 4 dilation: 2 bias_term: false")),
                                 {1, 4, 12, 11}, what + ": 5x5, 2 outputs per channel, dilation 2, no padding or bias");
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(3, "kernel_size: 3 pad: 1 group: 3")), {1, 3, 3, 2},
            what + ": a 3x2 map");
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(40, "kernel_size: 3 pad: 1 group: 40")), {2, 40, 7, 7},
            what + ": 40 channels of 7x7, batch 2");
        expect_matches_reference(
            layer("c", "Convolution", "data", "c", conv_params(24, "kernel_size: 3 stride: 2 pad: 1 group: 24")),
            {1, 24, 14, 14}, what + ": 14x14 to 7x7");
    }
}

// Whether the plan of `layers` runs convolution `c` on `variant` (or it falls back to another,
// or its knobs do not fit the shape).
bool convolution_runs_on(const TargetDescription &target, const std::string &layers, const Shape &input,
                         const std::string &variant) {
    Graph graph = import_caffe_prototxt_text(input_header(input) + layers, "net", ImportOptions{});
    infer_shapes(graph);
    try {
        const NetworkPlan plan = plan_network(graph, "net", target.plan_target(), test_plan_options());
        for (const PlannedStep &step : plan.steps)
            if (step.layer == "c") return plan.kernels[size_t(step.kernel)].choice.variant == variant;
    } catch (const CompileError &) {}
    return false;
}

// 1x1 convolutions at stride 2 (ResNet's downsampling shortcuts), alone and summed with a 3x3
// stride-2 branch, in every variant of the target's family that takes them, forced; the GEMM
// with channels in the lanes reads each output pixel's input pixel where it lies.
TEST(Convolution, StridedOneByOneInEveryVariant) {
    const TargetDescription target = resolve_target(test_target());
    const Shape input = {2, 24, 15, 13};
    const std::string shortcut = layer("c", "Convolution", "data", "c", conv_params(40, "kernel_size: 1 stride: 2"));
    const std::string networks[] = {
        shortcut + layer("r", "ReLU", "c", "c"),
        layer("b", "Convolution", "data", "b", conv_params(40, "kernel_size: 3 stride: 2 pad: 1")) + shortcut +
            layer("s", "Eltwise", "b c", "s") + layer("r", "ReLU", "s", "s")};
    int checked = 0;
    for (const auto &variant : schedules::families().at(target.schedule_family).op<ops::Conv2dShape>().variants) {
        const std::string knobs = "conv2d.variant=" + variant.name;
        const ScopedKnobs forced(knobs);
        if (!convolution_runs_on(target, shortcut, input, variant.name)) continue;
        for (const std::string &layers : networks) expect_matches_reference(layers, input, knobs + ": 1x1 stride 2");
        checked++;
    }
    EXPECT_GE(checked, 2) << "fewer than two variants take a 1x1 stride-2 convolution";
}

// Convolutions whose kernel adds a residual in its epilogue (fuse_residual_sums): every
// convolution variant of the target's family, forced, on each case it computes (beyond the host,
// on its first two): 3x3, 5x5, 1x1,
// depthwise and whole-map (fully connected) layers, the residual the network's input (and in
// each variant's first case another convolution's output), a leaky ReLU or a TanH after the
// sum, batch 2, maps that are not whole tiles. Every blob matches the reference, and the sum
// did fuse.
TEST(Convolution, ResidualSumInEveryVariant) {
    const auto sum = [](const std::string &a, const std::string &b, const std::string &top) {
        return layer("s", "Eltwise", a + " " + b, top);
    };
    const struct Case {
        std::string what, conv;
        int kernel, pad, group;
        Shape input;
        std::string after;
    } cases[] = {
        {"3x3 pad 1 + data, leaky ReLU",
         "kernel_size: 3 pad: 1",
         3,
         1,
         1,
         {2, 16, 9, 11},
         layer("r", "ReLU", "s", "s", "relu_param { negative_slope: 0.1 }")},
        {"5x5 pad 2 + data", "kernel_size: 5 pad: 2", 5, 2, 1, {1, 16, 10, 9}, ""},
        {"1x1 + data, TanH", "kernel_size: 1", 1, 0, 1, {2, 24, 7, 9}, layer("t", "TanH", "s", "s")},
        {"depthwise 3x3 + data, ReLU",
         "kernel_size: 3 pad: 1 group: 16",
         3,
         1,
         16,
         {2, 16, 13, 19},
         layer("r", "ReLU", "s", "s")},
        {"1x1 on a 1x1 map + data, ReLU", "kernel_size: 1", 1, 0, 1, {4, 32, 1, 1}, layer("r", "ReLU", "s", "s")},
    };
    const TargetDescription target = resolve_target(test_target());
    std::map<std::string, int> checked;
    for (const auto &variant : schedules::families().at(target.schedule_family).op<ops::Conv2dShape>().variants) {
        if (forced_variants_checked_by_the_host_suite() && variant.name != "cpu_register_tile") continue;
        checked[variant.name] = 0;
        const std::string knobs = "conv2d.variant=" + variant.name;
        const ScopedKnobs forced(knobs);
        for (const Case &c : cases) {
            const int outputs = int(c.input[1]);
            const std::string conv = layer("c", "Convolution", "data", "c", conv_params(outputs, c.conv));
            if (!convolution_runs_on(target, conv, c.input, variant.name)) continue;
            // Beyond the host (PoCL, qemu: seconds per kernel), each variant's first two cases.
            if (test_target() != "host" && checked[variant.name] == 2) break;
            // The residual is the input; in the variant's first case also the output of a
            // convolution that the fused one reads too.
            std::vector<std::string> networks = {conv + sum("data", "c", "s") + c.after};
            if (checked[variant.name] == 0)
                networks.push_back(layer("a", "Convolution", "data", "a", conv_params(outputs, "kernel_size: 1")) +
                                   layer("c", "Convolution", "a", "c", conv_params(outputs, c.conv)) +
                                   sum("a", "c", "s") + c.after);
            for (const std::string &layers : networks) {
                Graph fused = import_caffe_prototxt_text(input_header(c.input) + layers, "residual", ImportOptions{});
                infer_shapes(fused);
                fuse_layers(fused);
                const Layer &last = fused.layers.back();
                const auto *p = std::get_if<ConvolutionParams>(&last.params);
                EXPECT_TRUE(p && p->fused_sum && last.name == "c")
                    << knobs << ", " << c.what << ": the sum did not fuse";
                expect_matches_reference(layers, c.input, knobs + ": " + c.what);
            }
            checked[variant.name]++;
        }
    }
    for (const auto &[variant, count] : checked) EXPECT_GT(count, 0) << variant << ": no case it computes";
}

TEST(Convolution, RandomShapes) {
    std::mt19937 random(static_cast<uint32_t>(test_seed()));
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
    for (int trial = 0; trial < 6; trial++) {
        const int group = std::vector<int>{1, 1, 2, 3}[pick(0, 3)];
        const int in_c = group * pick(1, 6), out_c = group * pick(1, 12);
        const int k = pick(1, 5), stride = pick(1, 3), pad = pick(0, 2), dilation = pick(1, 2);
        const int extent = dilation * (k - 1) + 1;
        const int h = pick(std::max(1, extent - 2 * pad), 23), w = pick(std::max(1, extent - 2 * pad), 29);
        std::ostringstream extra;
        extra << "kernel_size: " << k << " stride: " << stride << " pad: " << pad << " dilation: " << dilation
              << " group: " << group << (pick(0, 3) == 0 ? " bias_term: false" : "");
        expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(out_c, extra.str())),
                                 {pick(1, 2), in_c, h, w}, "random conv " + extra.str());
    }
}

// The GPU family's shared-memory staging (schedules/gpu/conv2d_staged.h), chosen family-wide
// on shapes its default leaves to the register variant: split input channels, strides,
// dilation, odd maps, batch 2, channel counts with few divisors; grouped layers must keep the
// register variant. CPU targets, which have no such variant, run the same shapes as they are.
TEST(Convolution, SharedMemoryStagedShapes) {
    const ScopedKnobs force_staging(gpu_test_target() ? "conv2d.variant=gpu_staged,conv2d.stage_channels=4" : "");
    // PoCL's default work-group method (loopvec: work-item loops vectorised by LLVM) miscompiles
    // some staged tiles (2x16x6x8 -> 40, kernel 2, pad 2) that its loops method computes
    // correctly from the same OpenCL source (targets/opencl-pocl.target); with PoCL's bug taken
    // out, the test checks cortado's kernel. The variable only reaches PoCL. (PoCL 3.1, Debian
    // 12's, knows auto, loops, loopvec and workitemrepl; it takes an unknown name as auto.)
    const ScopedEnv pocl_method("POCL_WORK_GROUP_METHOD", "loops");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c", conv_params(64, "kernel_size: 3 pad: 1")) + layer("r", "ReLU", "c", "c"),
        {1, 64, 15, 15}, "staged, input channels split");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(64, "kernel_size: 3 pad: 1 group: 2")),
                             {2, 64, 13, 11}, "staged, group 2, batch 2");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(40, "kernel_size: 1")), {1, 37, 9, 13},
                             "staged 1x1, channel counts with few divisors");
    // Its 63x63 input window with 3-channel chunks would overflow 48 KiB: chunks shrink to fit.
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(32, "kernel_size: 11 stride: 4")),
                             {1, 3, 63, 63}, "staged 11x11 stride 4, chunks shrunk to fit shared memory");
    std::mt19937 random(static_cast<uint32_t>(test_seed()));
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
    for (int trial = 0; trial < 3; trial++) {
        const int group = pick(1, 2), in_c = group * 8 * pick(2, 5), out_c = group * 8 * pick(4, 9);
        const int k = pick(1, 5), stride = pick(1, 2), pad = pick(0, 2), dilation = pick(1, 2);
        const int extent = dilation * (k - 1) + 1;
        const int h = pick(std::max(1, extent - 2 * pad), 19), w = pick(std::max(1, extent - 2 * pad), 21);
        std::ostringstream extra;
        extra << "kernel_size: " << k << " stride: " << stride << " pad: " << pad << " dilation: " << dilation
              << " group: " << group;
        expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(out_c, extra.str())),
                                 {pick(1, 2), in_c, h, w}, "random staged conv " + extra.str());
    }
}

// The GPU register variant given a 128-register budget (targets' registers_per_thread): tiles
// of 8 output channels on spatial kernels, and kernel rows unrolled for kernels up to 5 rows.
// A low thread target lets these small shapes take the 8-channel tile (it needs target/8
// threads): split input channels, odd channel counts (overlapping tiles) and groups do; the
// strided 3x3, the 1x1 layer and the 11x11 one (rows not unrolled) keep 4 channels.
TEST(Convolution, LargeRegisterBudgetShapes) {
    if (!gpu_test_target())
        GTEST_SKIP() << "the register budget only steers GPU schedules; " << test_target() << " has none";
    const ScopedKnobs budget("conv2d.registers=128,conv2d.target_threads=2048");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c", conv_params(64, "kernel_size: 3 pad: 1")) + layer("r", "ReLU", "c", "c"),
        {1, 128, 15, 15}, "3x3, input channels split");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(36, "kernel_size: 5 pad: 2 group: 2")),
                             {2, 18, 13, 11}, "5x5, group 2, batch 2, 18 channels per group");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c", conv_params(24, "kernel_size: 3 stride: 2 dilation: 2")),
        {1, 20, 17, 19}, "3x3 stride 2 dilation 2");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(40, "kernel_size: 1")), {1, 37, 9, 13},
                             "1x1");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(32, "kernel_size: 11 stride: 4")),
                             {1, 3, 35, 39}, "11x11 stride 4");
}

std::string pool(const std::string &params) {
    return layer("p", "Pooling", "data", "p", "pooling_param { " + params + " }");
}

TEST(Pooling, CaffeRoundingPaddingAndGlobal) {
    expect_matches_reference(pool("pool: MAX kernel_size: 3 stride: 2"), {1, 3, 13, 13}, "max 3/2 on 13 (rounds up)");
    expect_matches_reference(pool("pool: MAX kernel_size: 3 stride: 2 pad: 1"), {2, 4, 10, 7},
                             "max with pad correction");
    expect_matches_reference(pool("pool: AVE kernel_size: 3 stride: 2 pad: 1"), {1, 5, 9, 12},
                             "ave divisor over padded window");
    expect_matches_reference(pool("pool: AVE kernel_h: 2 kernel_w: 3 stride_h: 1 stride_w: 2"), {1, 2, 8, 11},
                             "rectangular ave");
    expect_matches_reference(pool("pool: AVE global_pooling: true"), {2, 6, 7, 5}, "global average");
    // Wider than a warp and taller than a GPU block's rows, neither a multiple: the GPU splits the
    // plane's sum across a block with tails on both sides.
    expect_matches_reference(pool("pool: AVE global_pooling: true"), {2, 3, 45, 37}, "global average, tails");
    expect_matches_reference(pool("pool: AVE kernel_size: 3 stride: 3 pad: 1"), {1, 4, 2, 2},
                             "an average whose one window is padded");
    expect_matches_reference(pool("pool: MAX global_pooling: true"), {1, 3, 6, 6}, "global max");
    expect_matches_reference(pool("pool: AVE kernel_size: 7 stride: 1"), {1, 32, 7, 7}, "GoogLeNet-style 7x7 average");
}

// MAX takes its window as columns, then rows: clamped to the image in rows wide enough for
// interior vectors, from a framed plane in narrow stride-1 rows, and as one reduction when the
// kernel is too large to unroll. Global pooling puts channels in the lanes. Each form, with its
// edges and vector tails.
TEST(Pooling, MaxFormsAndTheirEdges) {
    expect_matches_reference(pool("pool: MAX kernel_size: 3 stride: 2"), {2, 3, 35, 37}, "3/2, rows clamped");
    expect_matches_reference(pool("pool: MAX kernel_size: 3 stride: 1 pad: 1"), {1, 4, 12, 61},
                             "3/1 pad 1 on 61-wide rows");
    expect_matches_reference(pool("pool: MAX kernel_size: 3 stride: 1 pad: 1"), {1, 4, 20, 29},
                             "3/1 pad 1 on 29-wide rows");
    expect_matches_reference(pool("pool: MAX kernel_size: 3 stride: 1 pad: 1"), {2, 3, 10, 11},
                             "3/1 pad 1 on 11-wide rows, framed on every target");
    expect_matches_reference(pool("pool: MAX kernel_size: 2 stride: 2"), {1, 3, 17, 40}, "2/2 on odd rows");
    for (int width : {4, 8, 16, 32})  // windows that leave the last column out, on rows of whole vectors
        expect_matches_reference(pool("pool: MAX kernel_size: 3 stride: 2 round_mode: FLOOR"), {1, 2, 9, width},
                                 "3/2 rounded down on " + std::to_string(width) + "-wide rows");
    expect_matches_reference(pool("pool: AVE kernel_size: 3 stride: 2 pad: 1 ceil_mode: false"), {1, 3, 10, 21},
                             "3/2 pad 1 rounded down by the forks' ceil_mode");
    expect_matches_reference(pool("pool: MAX kernel_size: 5 stride: 3 pad: 2"), {1, 2, 9, 50},
                             "5/3 pad 2: the last window starts at the edge");
    expect_matches_reference(pool("pool: MAX kernel_h: 1 kernel_w: 4 stride_h: 1 stride_w: 4"), {1, 2, 6, 33},
                             "1x4 rows only");
    expect_matches_reference(pool("pool: MAX global_pooling: true"), {1, 2, 18, 17}, "global max over 18 rows");
    expect_matches_reference(pool("pool: MAX global_pooling: true"), {2, 37, 7, 7},
                             "global max, channels in the lanes with a tail");
    expect_matches_reference(pool("pool: AVE global_pooling: true"), {3, 21, 6, 5},
                             "global average, channels in the lanes with a tail");
}

TEST(LRN, AcrossAndWithinChannels) {
    expect_matches_reference(layer("n", "LRN", "data", "n", "lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 }"),
                             {1, 9, 6, 7}, "across channels");
    expect_matches_reference(layer("n", "LRN", "data", "n", "lrn_param { local_size: 3 alpha: 0.5 beta: 0.6 k: 2 }"),
                             {2, 2, 5, 19}, "across channels, k 2, fewer channels than the window");
    expect_matches_reference(
        layer("n", "LRN", "data", "n", "lrn_param { local_size: 3 alpha: 0.3 beta: 0.75 norm_region: WITHIN_CHANNEL }"),
        {1, 3, 8, 9}, "within channel");
}

std::string ip(const std::string &extra, int outputs) {
    return "inner_product_param { num_output: " + std::to_string(outputs) +
           " weight_filler { type: \"xavier\" } bias_filler { type: \"gaussian\" std: 1 } " + extra + " }";
}

TEST(InnerProduct, AxisTransposeBiasAndFusedRelu) {
    expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("", 37)), {3, 4, 5, 3}, "4-D input flattened");
    expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("axis: 2", 5)), {2, 3, 4, 6}, "axis 2");
    expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("transpose: true bias_term: false", 20)),
                             {1, 70}, "transposed weights, no bias");
    expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("", 33)) + layer("r", "ReLU", "f", "f"),
                             {5, 19}, "fused ReLU, K not a multiple of the vector width");
    expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("", 9)), {37, 70},
                             "37 rows: GPU schedules group rows 16 per block, the last group shifted inwards");
}

// The GEMM variants (generators/gemm.h) at edge sizes: one row or column, primes, sizes that are
// not multiples of the register tile or the task, K longer than one K block (with a short last
// block), and small blocks forced through the knobs so that many tasks and blocks meet.
TEST(Gemm, InnerProductEdgeSizes) {
    if (!cpu_test_target()) GTEST_SKIP() << "the GEMM variants are CPU schedules; " << test_target() << " has none";
    const ScopedKnobs gemm("inner_product.variant=cpu_gemm");
    // A blob of one value has a relative error only as good as its distance from 0: a sum that
    // cancels to near 0 loses every digit float rounding leaves. So single-value cases take a
    // constant bias far beyond the sum's range.
    expect_matches_reference(layer("f", "InnerProduct", "data", "f",
                                   "inner_product_param { num_output: 1 weight_filler { type: \"xavier\" } "
                                   "bias_filler { type: \"constant\" value: 5 } }"),
                             {1, 1}, "1 x 1 x 1 (|w x| <= 1.74, bias 5)");
    expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("", 53)) + layer("r", "ReLU", "f", "f"),
                             {7, 300}, "7 rows, 53 outputs, K 300: three K blocks, the last short; fused ReLU");
    expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("transpose: true bias_term: false", 97)),
                             {37, 3, 5, 2}, "37 rows, 97 outputs, transposed weights, no bias");
    const ScopedKnobs small(
        "inner_product.variant=cpu_gemm,inner_product.rows=3,inner_product.k_block=16,"
        "inner_product.row_block=6");
    expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("", 29)), {13, 41},
                             "3-row tiles, 6-row tasks over 13 rows, K blocks of 16 over 41");
}

TEST(Gemm, FullyConnectedAnd1x1Convolutions) {
    if (resolve_target(test_target()).schedule_family == "hvx") GTEST_SKIP() << "HVX has no GEMM variants";
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(23, "kernel_h: 7 kernel_w: 11")),
                             {3, 5, 7, 11}, "fully connected: the kernel covers the 7x11 input, batch 3");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c",
              "convolution_param { num_output: 1 kernel_size: 3 weight_filler { type: \"gaussian\" std: 0.3 } "
              "bias_filler { type: \"constant\" value: 40 } }") +
            layer("r", "ReLU", "c", "c"),
        {1, 131, 3, 3}, "fully connected: one output, K 1179 (sum's std 5.9, bias 40), fused ReLU");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c", conv_params(1, "kernel_size: 3")) + layer("r", "ReLU", "c", "c"),
        {16, 131, 3, 3}, "fully connected: one output, K 1179, batch 16, fused ReLU clipping about half");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(19, "kernel_size: 1")) +
                                 layer("r", "ReLU", "c", "c", "relu_param { negative_slope: 0.1 }"),
                             {2, 13, 7, 11}, "1x1, channels in the lanes: 19 outputs, 77 pixels, batch 2, leaky ReLU");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(37, "kernel_size: 1 bias_term: false")),
                             {1, 300, 5, 3}, "1x1, channels in the lanes: K 300 over three K blocks, no bias");
    expect_matches_reference(
        layer("c", "Convolution", "data", "c", conv_params(37, "kernel_size: 1")) + layer("r", "ReLU", "c", "c"),
        {2, 150, 20, 21}, "1x1, pixels in the lanes: 420 pixels, K 150 over two blocks, batch 2");
    if (!cpu_test_target()) return;
    const ScopedKnobs small(
        "conv2d.variant=cpu_gemm_1x1,conv2d.rows=5,conv2d.k_block=7,conv2d.row_block=10,conv2d.pack=0");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(17, "kernel_size: 1")), {3, 23, 1, 1},
                             "1x1 on a 1x1 map, unpacked: 5-row tiles, 10-row tasks, K blocks of 7");
}

// The GPU GEMM's two forms, forced, at sizes where the last tile shifts inwards, K splits into
// shares (with and without staged 4-k loads, and with a short last share), a block spans
// several warps, and a tile is taller than the rows or wider than the columns.
TEST(Gemm, GpuFormsAtEdgeSizes) {
    if (!gpu_test_target()) GTEST_SKIP() << "the GPU GEMM forms need a GPU target; " << test_target() << " is not one";
    const std::string fc = layer("f", "InnerProduct", "data", "f", ip("", 53)) + layer("r", "ReLU", "f", "f");
    for (const char *knobs : {"inner_product.variant=gpu_skinny_gemm",
                              "inner_product.variant=gpu_skinny_gemm,inner_product.k_block=64,inner_product.k_unroll=4",
                              "inner_product.variant=gpu_skinny_gemm,inner_product.k_block=48,inner_product.k_unroll=1",
                              "inner_product.variant=gpu_gemm", "inner_product.variant=gpu_gemm,inner_product.pack_a=1",
                              "inner_product.variant=gpu_gemm,inner_product.pack_a=1,inner_product.k_unroll=1",
                              "inner_product.variant=gpu_gemm,inner_product.cols=2,inner_product.rows=3,"
                              "inner_product.threads_x=8,inner_product.threads_y=8,inner_product.k_block=32"}) {
        const ScopedKnobs forced(knobs);
        expect_matches_reference(fc, {7, 256}, std::string("7 rows, 53 outputs, K 256, fused ReLU: ") + knobs);
        expect_matches_reference(layer("f", "InnerProduct", "data", "f", ip("transpose: true bias_term: false", 97)),
                                 {13, 3, 5, 4}, std::string("13 rows, 97 outputs, K 60, transposed weights: ") + knobs);
    }
    for (const char *knobs :
         {"conv2d.variant=gpu_gemm_fully_connected", "conv2d.variant=gpu_skinny_gemm_fully_connected",
          "conv2d.variant=gpu_gemm_fully_connected,conv2d.pack_a=1",
          "conv2d.variant=gpu_skinny_gemm_fully_connected,conv2d.k_block=36"}) {
        const ScopedKnobs forced(knobs);
        expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(70, "kernel_size: 3")),
                                 {3, 16, 3, 3}, std::string("fully connected, 70 outputs, K 144, batch 3: ") + knobs);
    }
    for (const char *knobs : {"conv2d.variant=gpu_gemm_1x1", "conv2d.variant=gpu_gemm_1x1_channel_lanes",
                              "conv2d.variant=gpu_gemm_1x1,conv2d.k_block=32,conv2d.rows=5",
                              "conv2d.variant=gpu_gemm_1x1_channel_lanes,conv2d.k_block=32,conv2d.cols=1"}) {
        const ScopedKnobs forced(knobs);
        expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(37, "kernel_size: 1")) +
                                     layer("r", "ReLU", "c", "c", "relu_param { negative_slope: 0.1 }"),
                                 {2, 96, 9, 11}, std::string("1x1, 37 outputs, 99 pixels, K 96, batch 2: ") + knobs);
    }
}

// The gemm op on its own (what `cortado bench sgemm` runs): every transpose combination, on
// targets this machine executes.
TEST(Gemm, OpTransposesBiasAndRelu) {
    const TargetDescription target = resolve_target(test_target());
    if (!cpu_test_target()) GTEST_SKIP() << "the gemm op has CPU schedules only; " << test_target() << " has none";
    const std::string why_not = why_cannot_run_here(target.halide_target);
    if (!why_not.empty()) GTEST_SKIP() << "the gemm op runs in this process; " << why_not;
    const TemporaryDirectory scratch("cortado-gemm-test");
    std::mt19937 random(static_cast<uint32_t>(test_seed()));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    struct Case {
        ops::GemmShape shape;
        bool bias, relu;
        float slope;
        bool clip = false;  // then ReLU6's Clip(0, 6), fused
    };
    for (const Case &c : std::vector<Case>{{{1, 1, 1, false, false}, false, false, 0.0f},
                                           {{7, 13, 300, false, false}, true, true, 0.0f},
                                           {{37, 53, 129, true, false}, false, false, 0.0f},
                                           {{5, 97, 17, false, true}, true, true, 0.25f},
                                           {{64, 48, 256, true, true}, true, false, 0.0f},
                                           {{9, 33, 70, false, false}, true, false, 0.0f, true}}) {
        ops::Epilogue epilogue;
        epilogue.bias = c.bias, epilogue.relu = c.relu, epilogue.relu_slope = c.slope;
        epilogue.activation = c.clip;
        epilogue.activation_shape.function = ops::ActivationFunction::Clip;
        epilogue.activation_shape.min = 0.0f, epilogue.activation_shape.max = 6.0f;
        const ops::GemmShape &s = c.shape;
        SCOPED_TRACE(ops::fields_text(s));
        std::vector<float> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), bias(size_t(s.n)), out(size_t(s.m) * s.n);
        for (float &v : a) v = uniform(random);
        for (float &v : b) v = uniform(random);
        for (float &v : bias) v = uniform(random);
        const GemmKernel gemm(s, epilogue, target, scratch.path(), test_plan_options());
        gemm.run(a.data(), b.data(), bias.data(), out.data());
        double error = 0, norm = 0;
        for (int i = 0; i < s.m; i++)
            for (int j = 0; j < s.n; j++) {
                double sum = c.bias ? bias[j] : 0.0;
                for (int k = 0; k < s.k; k++)
                    sum += double(s.trans_a ? a[size_t(k) * s.m + i] : a[size_t(i) * s.k + k]) *
                           double(s.trans_b ? b[size_t(j) * s.k + k] : b[size_t(k) * s.n + j]);
                if (c.relu && sum < 0) sum *= c.slope;
                if (c.clip) sum = std::min(std::max(sum, 0.0), 6.0);
                const double got = out[size_t(i) * s.n + j];
                error += (got - sum) * (got - sum);
                norm += sum * sum;
            }
        EXPECT_LE(std::sqrt(error / std::max(norm, 1e-30)), 1e-5) << gemm.kernel().function_name();
    }
}

TEST(Softmax, Axes) {
    expect_matches_reference(layer("s", "Softmax", "data", "s"), {2, 10}, "classifier");
    expect_matches_reference(layer("s", "Softmax", "data", "s"), {1, 5, 3, 4}, "over channels of a 4-D blob");
    expect_matches_reference(layer("s", "Softmax", "data", "s", "softmax_param { axis: -1 }"), {2, 3, 21}, "last axis");
    // More classes than a GPU's partial maxima and sums (32), not a multiple of them.
    expect_matches_reference(layer("s", "Softmax", "data", "s"), {3, 1000}, "1000 classes");
    expect_matches_reference(layer("s", "Softmax", "data", "s"), {2, 45, 2, 3}, "45 channels of a 4-D blob");
}

// Three different blobs from one input, for the layers that take several bottoms.
std::string three_blobs() {
    return layer("a", "ReLU", "data", "a", "relu_param { negative_slope: 0.3 }") +
           layer(
               "b", "Scale", "data", "b",
               "scale_param { filler { type: \"uniform\" min: -2 max: 2 } bias_term: true bias_filler { type: \"gaussian\" } }") +
           layer("c", "Pooling", "data", "c", "pooling_param { pool: MAX kernel_size: 3 stride: 1 pad: 1 }");
}

TEST(Concat, ChannelAndSpatialAxes) {
    expect_matches_reference(three_blobs() + layer("cat", "Concat", "a b c", "cat"), {2, 3, 5, 6}, "axis 1");
    expect_matches_reference(three_blobs() + layer("cat", "Concat", "a b c", "cat", "concat_param { axis: 2 }"),
                             {1, 2, 4, 3}, "axis 2");
}

// Producers written into their slices of a concatenation at batch 3, each image's slice a batch
// stride from the last: a convolution with its ReLU, a 1x1 convolution and a pooling write them;
// a concatenation nests in a larger one (DenseNet's growth); BatchNorm + Scale + ReLU, a
// convolution, LRN, pooling and an InnerProduct read them.
TEST(Concat, WrittenInPlaceAtBatchAboveOne) {
    const std::string layers =
        layer("a", "Convolution", "data", "a", conv_params(5, "kernel_size: 3 pad: 1")) +
        layer("ra", "ReLU", "a", "a") + layer("b", "Convolution", "data", "b", conv_params(3, "kernel_size: 1")) +
        layer("p", "Pooling", "data", "p", "pooling_param { pool: MAX kernel_size: 3 stride: 1 pad: 1 }") +
        layer("ab", "Concat", "a b p", "ab") + batch_norm("bn", "ab", "n") + biased_scale("sc", "n", "n") +
        layer("rn", "ReLU", "n", "n") + layer("c", "Convolution", "n", "c", conv_params(2, "kernel_size: 3 pad: 1")) +
        layer("abc", "Concat", "ab c", "abc") + layer("l", "LRN", "abc", "l", "lrn_param { local_size: 3 }") +
        layer("q", "Pooling", "l", "q", "pooling_param { pool: AVE kernel_size: 2 stride: 2 }") +
        layer("fc", "InnerProduct", "q", "fc",
              "inner_product_param { num_output: 6 weight_filler { type: \"gaussian\" std: 0.2 } }");
    // 16 x 16 planes: every slice starts where an OpenCL sub-buffer may, so PoCL places them too.
    expect_matches_reference(layers, {3, 4, 16, 16}, "nested concatenations in place at batch 3");
    expect_matches_reference(layers, {1, 4, 9, 9}, "the same at batch 1");

    // A channel concatenation in place at batch 2 inside a concatenation along the batch: its
    // slices keep their stride, or the batch concatenation copies.
    const std::string slices = layer("a", "Convolution", "data", "a", conv_params(4, "kernel_size: 3 pad: 1")) +
                               layer("b", "Convolution", "data", "b", conv_params(4, "kernel_size: 1")) +
                               layer("ab", "Concat", "a b", "ab");
    expect_matches_reference(
        slices + layer("e", "Convolution", "data", "e", conv_params(8, "kernel_size: 1")) +
            layer("y", "Concat", "ab e", "y", "concat_param { axis: 0 }") +
            layer("p", "Pooling", "y", "p", "pooling_param { pool: MAX kernel_size: 2 stride: 2 }"),
        {2, 3, 8, 8}, "channel concatenation inside a batch concatenation");
    // Kernels whose images are not their view's last dimension read a strided slice: a batch
    // concatenation of a (its images its channels' axis) and a Scale along the batch.
    expect_matches_reference(
        slices + layer("f", "Convolution", "data", "f", conv_params(4, "kernel_size: 1")) +
            layer("z", "Concat", "a f", "z", "concat_param { axis: 0 }") +
            layer("zr", "Reshape", "z", "zr", "reshape_param { shape { dim: 2 dim: 8 dim: 8 dim: 8 } }") +
            layer("sum", "Eltwise", "ab zr", "sum") +
            layer("s", "Scale", "b", "s",
                  "scale_param { axis: 0 num_axes: 1 filler { type: \"uniform\" min: 0.5 max: 2 } }") +
            layer("out", "Concat", "sum s", "out"),
        {2, 3, 8, 8}, "slices read by a batch concatenation and a Scale along the batch");
}

TEST(Eltwise, SumWithCoefficientsProductMax) {
    expect_matches_reference(three_blobs() + layer("e", "Eltwise", "a b c", "e",
                                                   "eltwise_param { operation: SUM coeff: 0.5 coeff: -2 coeff: 1.5 }"),
                             {1, 4, 6, 5}, "sum with coeff");
    expect_matches_reference(three_blobs() + layer("e", "Eltwise", "a b c", "e", "eltwise_param { operation: PROD }"),
                             {2, 3, 3, 3}, "product");
    expect_matches_reference(three_blobs() + layer("e", "Eltwise", "a b c", "e", "eltwise_param { operation: MAX }"),
                             {1, 2, 9, 4}, "max");
}

TEST(Activation, SigmoidTanhClip) {
    // Inputs scaled up so that sigmoid and tanh reach their flat tails, and clip both bounds.
    const std::string spread =
        layer("s", "Scale", "data", "x", "scale_param { filler { type: \"constant\" value: 12 } }");
    expect_matches_reference(spread + layer("a", "Sigmoid", "x", "x"), {2, 3, 7, 5}, "sigmoid in place");
    expect_matches_reference(spread + layer("a", "TanH", "x", "a"), {1, 37}, "tanh, 37 values");
    expect_matches_reference(spread + layer("a", "Clip", "x", "a", "clip_param { min: -2.5 max: 6 }"), {3, 4, 9, 11},
                             "clip to [-2.5, 6]");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(5, "kernel_size: 3")) +
                                 layer("a", "Clip", "c", "c", "clip_param { min: 0 max: 0.5 }") +
                                 layer("t", "TanH", "c", "t"),
                             {1, 3, 8, 8}, "ReLU6-style clip after a convolution, then tanh");
}

TEST(Activation, CaffeElementwiseLayers) {
    // Spread inputs so that every function meets both signs and its tails; Log and the
    // fractional Power read positive values (AbsVal's, shifted).
    const std::string spread =
        layer("s", "Scale", "data", "x", "scale_param { filler { type: \"constant\" value: 4 } }");
    expect_matches_reference(spread + layer("e", "ELU", "x", "e", "elu_param { alpha: 0.7 }") +
                                 layer("a", "AbsVal", "e", "a") + layer("b", "BNLL", "a", "b"),
                             {2, 3, 7, 5}, "ELU, AbsVal, BNLL");
    expect_matches_reference(spread + layer("e", "Exp", "x", "e", "exp_param { base: 2 scale: 0.5 shift: -1 }") +
                                 layer("l", "Log", "e", "l", "log_param { base: 10 scale: 3 shift: 0.5 }"),
                             {1, 37}, "Exp base 2, then Log base 10");
    expect_matches_reference(spread + layer("a", "AbsVal", "x", "a") +
                                 layer("p", "Power", "a", "p", "power_param { power: 1.5 scale: 0.5 shift: 0.1 }") +
                                 layer("q", "Power", "x", "q", "power_param { power: 3 scale: -0.5 shift: 0.2 }") +
                                 layer("m", "Eltwise", "p q", "m"),
                             {2, 4, 5, 9}, "fractional and odd Powers");
    expect_matches_reference(
        spread + layer("p", "PReLU", "x", "x", "prelu_param { filler { type: \"uniform\" } }") +
            layer("b", "Bias", "x", "b", "bias_param { axis: 1 num_axes: 2 filler { type: \"gaussian\" } }"),
        {2, 5, 4, 3}, "PReLU per channel in place, Bias over two axes");
    expect_matches_reference(layer("c", "Convolution", "data", "c", conv_params(4, "kernel_size: 3")) +
                                 layer("p", "PReLU", "c", "p", "prelu_param { channel_shared: true }"),
                             {1, 3, 9, 8}, "shared PReLU (Caffe's default slope 0.25) after a convolution");
}

TEST(DataMovement, CaffeSliceAndCrop) {
    expect_matches_reference(
        layer("s", "Slice", "data", "a", "top: \"b\" top: \"c\" slice_param { slice_point: 2 slice_point: 3 }") +
            layer("e", "Eltwise", "a c", "e", "eltwise_param { operation: SUM }") +
            layer("cat", "Concat", "e b", "cat"),
        {2, 5, 7, 9}, "Slice at points into three tops along the channels, then Concat in a new order");
    expect_matches_reference(layer("s", "Slice", "data", "a", "top: \"b\" slice_param { axis: 3 }") +
                                 layer("e", "Eltwise", "a b", "e", "eltwise_param { operation: PROD }"),
                             {1, 3, 5, 8}, "Slice into equal halves along the width");
    expect_matches_reference(
        layer("p", "Pooling", "data", "p", "pooling_param { pool: AVE kernel_size: 3 stride: 2 }") +
            layer("c", "Crop", "data p", "c", "crop_param { axis: 2 offset: 1 offset: 3 }") +
            layer("e", "Eltwise", "c p", "e"),
        {2, 3, 11, 13}, "Crop to another blob's size at per-axis offsets");
    expect_matches_reference(
        layer("p", "Pooling", "data", "p", "pooling_param { pool: MAX kernel_size: 2 stride: 2 }") +
            layer("c", "Crop", "data p", "c", "crop_param { axis: 1 offset: 0 }") + layer("e", "Eltwise", "c p", "e"),
        {1, 4, 8, 6}, "Crop from axis 1 with one offset");
}

TEST(Deconvolution, StridePadGroupDilation) {
    const auto deconv = [](int num_output, const std::string &extra) {
        return "convolution_param { num_output: " + std::to_string(num_output) +
               " weight_filler { type: \"gaussian\" std: 0.3 } bias_filler { type: \"uniform\" min: -1 max: 1 } " +
               extra + " }";
    };
    expect_matches_reference(layer("d", "Deconvolution", "data", "d", deconv(5, "kernel_size: 4 stride: 2 pad: 1")),
                             {2, 3, 7, 6}, "FCN's 2x upsampling: kernel 4, stride 2, pad 1");
    expect_matches_reference(layer("d", "Deconvolution", "data", "d",
                                   deconv(6, "kernel_h: 3 kernel_w: 2 stride_h: 3 stride_w: 1 group: 2 dilation: 2")),
                             {1, 4, 5, 9}, "rectangular kernel, uneven strides, groups and dilation");
    expect_matches_reference(layer("d", "Deconvolution", "data", "d", deconv(3, "kernel_size: 1 bias_term: false")) +
                                 layer("r", "ReLU", "d", "d"),
                             {1, 8, 3, 17}, "1x1 without bias, then ReLU");
}

TEST(ShapeOnlyLayers, DropoutSplitFlattenReshapeRelu) {
    expect_matches_reference(layer("d", "Dropout", "data", "d") + layer("sp", "Split", "d", "s1") +
                                 layer("fl", "Flatten", "s1", "fl") + layer("f", "InnerProduct", "fl", "f", ip("", 6)),
                             {2, 3, 4, 4}, "dropout, split, flatten into a classifier");
    expect_matches_reference(layer("rs", "Reshape", "data", "rs", "reshape_param { shape { dim: 0 dim: -1 dim: 2 } }") +
                                 layer("s", "Softmax", "rs", "s", "softmax_param { axis: 1 }"),
                             {2, 3, 4, 2}, "reshape with 0 and -1");
    expect_matches_reference(layer("r", "ReLU", "data", "r", "relu_param { negative_slope: 0.1 }"), {1, 3, 17, 5},
                             "standalone leaky ReLU (not in place)");
}

TEST(Normalisation, BatchNormThenScale) {
    expect_matches_reference(
        layer("bn", "BatchNorm", "data", "data", "batch_norm_param { use_global_stats: true eps: 0.001 }") +
            layer("sc", "Scale", "data", "data", "scale_param { bias_term: true filler { type: \"gaussian\" } }"),
        {2, 6, 5, 3}, "BatchNorm + Scale in place");
    expect_matches_reference(layer("sc", "Scale", "data", "sc",
                                   "scale_param { axis: 1 num_axes: 2 filler { type: \"uniform\" min: -1 max: 1 } }"),
                             {1, 3, 4, 5}, "Scale over two axes");
}

// Caffe's two-bottom Scale (SENet's x times its per-image, per-channel gate): the scale is a
// computed blob over x's axes from `axis` on, here (N, C) with axis 0, with and without a learned
// bias, a fused ReLU after it.
TEST(Normalisation, ScaleByASecondBottom) {
    const std::string gate =
        layer("pool", "Pooling", "data", "pool", "pooling_param { pool: AVE global_pooling: true }") +
        layer("gate", "Sigmoid", "pool", "pool") + layer("flat", "Flatten", "pool", "flat");
    expect_matches_reference(gate + layer("sc", "Scale", "data flat", "sc", "scale_param { axis: 0 }"), {2, 6, 5, 3},
                             "x times its (N, C) gate");
    expect_matches_reference(
        gate +
            layer("sc", "Scale", "data flat", "sc",
                  "scale_param { axis: 0 bias_term: true bias_filler { type: \"uniform\" min: -1 max: 1 } }") +
            layer("r", "ReLU", "sc", "sc"),
        {3, 20, 4, 4}, "x times its gate, plus a bias, then a ReLU");
}

}  // namespace
}  // namespace cortado::testing
