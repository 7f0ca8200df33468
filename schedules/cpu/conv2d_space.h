// The convolution's variants on the CPU families (Halide-free), and the default rule that picks
// among them from the shape.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "schedules/cpu/conv2d_channel_lanes_space.h"
#include "schedules/cpu/conv2d_depthwise_space.h"
#include "schedules/cpu/conv2d_winograd_space.h"
#include "schedules/cpu/gemm_space.h"

namespace cortado::schedules::cpu {

// From how many pixels per image and output channels a 1x1 layer vectorises along pixels;
// smaller maps, or fewer channels to reuse each packed pixel panel, put channels in the lanes
// (docs/PERFORMANCE.md, GEMM).
inline constexpr int kPixelLanesMinPixels = 400, kPixelLanesMinChannels = 64;

// From which reduction depth (input channels per group x kernel area) the channel-lanes direct
// convolution is the default. A shallower layer (a first layer on 3 colour channels) sums too
// little per pixel to pay for the channel-lanes tile's stores, one scalar per channel plane: the
// register tile, which stores whole vectors along x, ran such layers 1.3-3x faster at every
// batch (CIFAR-10 conv1, GoogLeNet conv1; docs/PERFORMANCE.md, CPU convolution variants).
inline constexpr int kCpuChannelLanesMinDepth = 192;

// Winograd by default, where it measured faster than the channel-lanes direct convolution in
// the network (docs/PERFORMANCE.md, "Winograd by default on the CPU"):
// - F(4x4) on maps of at least kWinogradF4MinMap: a 6x6 tile wastes little there, and each
//   output costs a quarter of the direct convolution's multiplies. On smaller maps down to
//   kWinogradMinMap, F(4x4) where winograd_cost puts it below kWinogradF4CostShare of F(2x2)'s
//   and its transformed weights fit half of L3 (each image's products stream them all);
//   otherwise F(2x2);
// - the transforms cost per input and output channel what the products save per pair of them,
//   so shallow layers (fewer than kWinogradMinInputs inputs or kWinogradMinOutputs outputs per
//   group) are left direct;
// - the input transform is stored before the products read it, a chunk of images at a time
//   (winograd_batch_chunk): a layer whose single image's transform passes the limit is left
//   direct.
inline constexpr int kWinogradF4MinMap = 24, kWinogradMinMap = 7;
inline constexpr int kWinogradMinInputs = 16, kWinogradMinOutputs = 32;
inline constexpr double kWinogradF4CostShare = 0.9;

// What F(m×m, 3×3) costs `s`, in arithmetic: per tile (the map's edge tiles whole), the α² products
// of every input by every output channel, plus the transforms, per input channel (B^T d B) and per
// output channel (A^T M A), counted from their matrices. A transform's operation cost about
// kWinogradTransformWeight of the products' (loads, stores and shuffles where the products stream
// FMAs). The weight and kWinogradF4CostShare are the values that order F(4x4) and F(2x2) as
// one-layer measurements on 7x7 to 20x20 maps did (docs/PERFORMANCE.md, "F(4x4) on small maps"):
// near the share the two forms tie.
inline constexpr double kWinogradTransformWeight = 4;
inline double winograd_cost(const Conv2dShape &s, int m) {
    // Per position and group: tiles (rows) by outputs (cols) by inputs (depth).
    const ops::GemmDims d = ops::winograd_gemm_dims(s, m);
    const double input_transform = m == 4 ? 456 : 32, output_transform = m == 4 ? 320 : 24;
    const double products = 2.0 * d.rows * d.cols * d.depth * d.batch;
    const double transforms = double(d.rows) * s.group * (input_transform * d.depth + output_transform * d.cols);
    return products + kWinogradTransformWeight * transforms;
}

// F(4x4) or F(2x2) for a map below kWinogradF4MinMap. The estimate holds for channel-blocked
// tensors; reading and writing NCHW (one layer alone, or between layers that take no blocks),
// F(4x4)'s transforms gather and scatter 6x6 and 4x4 tiles across channel planes, which costs it
// more than the products save.
inline int winograd_small_map_m(const Conv2dShape &s, const TargetInfo &t, bool blocked) {
    if (!blocked) return 2;
    const MachineModel machine = t.model();
    const int64_t cache_kib = machine.l3_kib > 0 ? machine.l3_kib : machine.l2_kib;
    if (winograd_weight_bytes(s, 4) > cache_kib * 1024 / 2) return 2;
    return winograd_cost(s, 4) < kWinogradF4CostShare * winograd_cost(s, 2) ? 4 : 2;
}

// The Winograd variant the default rule takes for `s`, "" where the direct convolution stays.
// A target with strict_float asked for IEEE semantics, which Winograd's transforms do not keep
// (an infinity spreads over a tile): it keeps the direct convolution.
inline std::string winograd_default(const Conv2dShape &s, const TargetInfo &t, bool blocked = true) {
    if (t.has_feature("strict_float")) return "";
    const int map = std::min(s.out_h, s.out_w), in = s.in_channels / s.group, out = s.out_channels / s.group;
    if (!ops::winograd_unsupported(s, 3).empty() || map < kWinogradMinMap) return "";
    if (in < kWinogradMinInputs || out < kWinogradMinOutputs) return "";
    const int m = map >= kWinogradF4MinMap ? 4 : winograd_small_map_m(s, t, blocked);
    // F(2x2) saves 2.25x the multiplies, not 4x: on shallow layers its transforms ate the saving.
    if (m == 2 && !winograd_deep(s)) return "";
    if (winograd_transform_bytes_per_image(s, m) > winograd_transform_limit(s)) return "";
    return m == 4 ? "cpu_winograd_f4" : "cpu_winograd_f2";
}

// Convolution: fully-connected layers as a GEMM over packed weight panels (the image is a row
// of a), 1x1 stride-1 layers as a GEMM per image over packed weight panels (the weights are a,
// the pixels b; on small maps the other way round, channels in the vector lanes); depthwise
// layers by a streaming schedule of their own (and in channel blocks where the planner's layout
// rule moves them); 3x3 stride-1 layers deep enough by Winograd (winograd_default); everything
// else by the channel-lanes direct convolution, and by `direct` (output x in the lanes) where no
// whole vector of channels fits a group or the reduction is shallow.
inline OpSpace<Conv2dShape> conv2d_space(VariantSpec<Conv2dShape> direct, RegisterCount registers) {
    OpSpace<Conv2dShape> space;
    const std::string direct_name = direct.name;
    space.variants.push_back(std::move(direct));
    space.variants.push_back(conv2d_channel_lanes(registers));
    space.variants.push_back(conv2d_depthwise());
    space.variants.push_back(conv2d_depthwise_channel_lanes(registers));
    auto fc = gemm_variant<Conv2dShape>("cpu_gemm_fully_connected", ops::WeightPacking::ColumnPanels, false,
                                        ops::fully_connected_gemm_dims, registers);
    fc.form = ops::Form::conv_gemm(ops::ConvGemmForm::FullyConnected);
    fc.unsupported = ops::fully_connected_unsupported;
    space.variants.push_back(std::move(fc));
    auto pixels = gemm_variant<Conv2dShape>("cpu_gemm_1x1", ops::WeightPacking::RowPanels, true,
                                            ops::pointwise_gemm_dims, registers);
    pixels.form = ops::Form::conv_gemm(ops::ConvGemmForm::PixelLanes);
    pixels.unsupported = ops::pointwise_unsupported;
    space.variants.push_back(std::move(pixels));
    auto channels = gemm_variant<Conv2dShape>("cpu_gemm_1x1_channel_lanes", ops::WeightPacking::ColumnPanels, false,
                                              ops::pointwise_channel_gemm_dims, registers);
    channels.form = ops::Form::conv_gemm(ops::ConvGemmForm::ChannelLanes);
    channels.channel_blocks = true;  // tiles of whole blocks of output channels, read by broadcasts
    channels.unsupported = ops::strided_pointwise_unsupported;
    space.variants.push_back(std::move(channels));
    // Winograd trades exactness for arithmetic (3e-5 for F(4x4), conv2d_winograd_space.h); the
    // default rule takes it where winograd_default finds it pays.
    space.variants.push_back(conv2d_winograd(2, 3, registers));
    space.variants.push_back(conv2d_winograd(4, 3, registers));
    space.variants.push_back(conv2d_winograd(2, 5, registers));
    const auto rule = [direct_name](const Conv2dShape &s, const TargetInfo &t, bool blocked) -> std::string {
        if (ops::is_fully_connected(s)) return "cpu_gemm_fully_connected";
        if (ops::is_depthwise(s)) return kDepthwise;
        if (ops::is_pointwise(s))
            return s.out_h * s.out_w >= kPixelLanesMinPixels && s.out_channels >= kPixelLanesMinChannels
                       ? "cpu_gemm_1x1"
                       : "cpu_gemm_1x1_channel_lanes";
        // A strided 1x1 layer sums as deep as a pointwise one, and blocks its reduction the same
        // way; the direct convolution streams every weight panel whole per register tile.
        if (ops::is_strided_pointwise(s)) return "cpu_gemm_1x1_channel_lanes";
        if (const std::string winograd = winograd_default(s, t, blocked); !winograd.empty()) return winograd;
        return channel_lanes_apply(s, t) && ops::reduction_depth(s) >= kCpuChannelLanesMinDepth ? kChannelLanes
                                                                                                : direct_name;
    };
    space.default_variant = [rule](const Conv2dShape &s, const TargetInfo &t) { return rule(s, t, true); };
    space.nchw_variant = [rule](const Conv2dShape &s, const TargetInfo &t) {
        const std::string nchw = rule(s, t, false);
        return nchw == rule(s, t, true) ? std::string() : nchw;
    };
    return space;
}

}  // namespace cortado::schedules::cpu
