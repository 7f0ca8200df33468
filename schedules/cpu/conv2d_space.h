// The convolution's variants on the CPU families (Halide-free), and the default rule that picks
// among them from the shape.
#pragma once

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

// Convolution: fully-connected layers as a GEMM over packed weight panels (the image is a row
// of a), 1x1 stride-1 layers as a GEMM per image over packed weight panels (the weights are a,
// the pixels b; on small maps the other way round, channels in the vector lanes); depthwise
// layers by a streaming schedule of their own (and in channel blocks where the planner's layout
// rule moves them); everything else by the channel-lanes direct
// convolution, and by `direct` (output x in the lanes) where no whole vector of channels fits a
// group or the reduction is shallow.
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
    fc.unsupported = [](const Conv2dShape &s) {
        return ops::is_fully_connected(s) ? "" : "the kernel does not cover the whole unpadded input";
    };
    space.variants.push_back(std::move(fc));
    const auto not_pointwise = [](const Conv2dShape &s) {
        return ops::is_pointwise(s) ? "" : "not a 1x1 kernel at stride 1 without padding, in one group";
    };
    auto pixels = gemm_variant<Conv2dShape>("cpu_gemm_1x1", ops::WeightPacking::RowPanels, true,
                                            ops::pointwise_gemm_dims, registers);
    pixels.form = ops::Form::conv_gemm(ops::ConvGemmForm::PixelLanes);
    pixels.unsupported = not_pointwise;
    space.variants.push_back(std::move(pixels));
    auto channels = gemm_variant<Conv2dShape>("cpu_gemm_1x1_channel_lanes", ops::WeightPacking::ColumnPanels, false,
                                              ops::pointwise_channel_gemm_dims, registers);
    channels.form = ops::Form::conv_gemm(ops::ConvGemmForm::ChannelLanes);
    channels.channel_blocks = true;  // tiles of whole blocks of output channels, read by broadcasts
    channels.unsupported = [](const Conv2dShape &s) {
        return ops::is_strided_pointwise(s) ? "" : "not a 1x1 kernel without padding, in one group";
    };
    space.variants.push_back(std::move(channels));
    // Winograd is never a default: it is less exact than the 1e-5 every default is held to.
    space.variants.push_back(conv2d_winograd(2, 3, registers));
    space.variants.push_back(conv2d_winograd(4, 3, registers));
    space.variants.push_back(conv2d_winograd(2, 5, registers));
    space.default_variant = [direct_name](const Conv2dShape &s, const TargetInfo &t) -> std::string {
        if (ops::is_fully_connected(s)) return "cpu_gemm_fully_connected";
        if (ops::is_depthwise(s)) return kDepthwise;
        if (ops::is_pointwise(s))
            return s.out_h * s.out_w >= kPixelLanesMinPixels && s.out_channels >= kPixelLanesMinChannels
                       ? "cpu_gemm_1x1"
                       : "cpu_gemm_1x1_channel_lanes";
        // A strided 1x1 layer sums as deep as a pointwise one, and blocks its reduction the same
        // way; the direct convolution streams every weight panel whole per register tile.
        if (ops::is_strided_pointwise(s)) return "cpu_gemm_1x1_channel_lanes";
        return channel_lanes_apply(s, t) && ops::reduction_depth(s) >= kCpuChannelLanesMinDepth ? kChannelLanes
                                                                                                : direct_name;
    };
    return space;
}

}  // namespace cortado::schedules::cpu
