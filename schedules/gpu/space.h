// The GPU family (CUDA and OpenCL): every op's variants, knob spaces and default rules.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "schedules/gpu/conv2d_channel_lanes_space.h"
#include "schedules/gpu/conv2d_depthwise_space.h"
#include "schedules/gpu/conv2d_fp16_space.h"
#include "schedules/gpu/conv2d_int8_space.h"
#include "schedules/gpu/conv2d_pool_space.h"
#include "schedules/gpu/conv2d_staged_tile.h"
#include "schedules/gpu/conv2d_tile_rule.h"
#include "schedules/gpu/conv2d_winograd_space.h"
#include "schedules/gpu/gemm_space.h"
#include "schedules/gpu/limits.h"
#include "schedules/space.h"

namespace cortado::schedules::gpu {

// The knobs set so far as the schedules read them: 0 for a tile knob not set yet, the
// defaults for the launch knobs.
inline Conv2dKnobs pinned_knobs(const Knobs &knobs, const TargetInfo &t) {
    Conv2dKnobs defaults;
    defaults.registers = register_budget(t);
    return conv2d_knobs(knobs, defaults);
}

inline VariantSpec<Conv2dShape> conv2d_register_tile() {
    VariantSpec<Conv2dShape> v;
    v.name = "gpu_register_tile";
    v.sources = {"schedules/gpu/conv2d.h", "schedules/gpu/conv2d_staged_tile.h", "schedules/gpu/limits.h"};
    v.knobs = {{"rows", 1, 16, "output rows per thread"},
               {"cols", 1, 8, "adjacent output x positions per thread"},
               {"channels", 1, 16, "output channels per thread"},
               {"threads_x", 1, 256, "threads of a block along x"},
               {"threads_c", 1, 64, "threads of a block along the output channels"},
               {"split_k", 1, 64, "shares of the input channels, summed by a second kernel"}};
    for (const KnobSpec &k : conv2d_launch_knobs()) v.knobs.push_back(k);
    v.violated = [](const Conv2dShape &, const TargetInfo &, const Knobs &k) {
        return block_too_large(k.get("threads_x") * k.get("threads_c"));
    };
    v.complete = [](const Conv2dShape &s, const TargetInfo &t, Knobs &knobs) {
        Conv2dKnobs k = register_tile(s, pinned_knobs(knobs, t));
        if (k.split_k <= 0) k.split_k = split_for(s, tile_threads(s, k.cols, k.rows, k.channels), k.target_threads);
        // What the schedule will use (tile_conv_output fits each size to the map).
        k.rows = fitting(k.rows, s.out_h), k.channels = fitting(k.channels, s.out_channels),
        k.cols = fitting(k.cols, s.out_w);
        k.threads_x = fitting(k.threads_x, s.out_w / k.cols);
        k.threads_c = fitting(k.threads_c, (s.out_channels + k.channels - 1) / k.channels);
        const Knobs resolved{{{"rows", k.rows},
                              {"cols", k.cols},
                              {"channels", k.channels},
                              {"threads_x", k.threads_x},
                              {"threads_c", k.threads_c},
                              {"split_k", k.split_k},
                              {"target_threads", k.target_threads},
                              {"registers", k.registers}}};
        knobs = resolved;
    };
    return v;
}

inline VariantSpec<Conv2dShape> conv2d_staged() {
    VariantSpec<Conv2dShape> v;
    v.name = "gpu_staged";
    v.sources = {"schedules/gpu/conv2d.h", "schedules/gpu/conv2d_staged_tile.h", "schedules/gpu/limits.h"};
    v.knobs = {{"rows", 1, 16, "output rows per thread"},
               {"cols", 1, 8, "adjacent output x positions per thread"},
               {"channels", 1, 16, "output channels per thread"},
               {"threads_x", 1, 256, "threads of a block along x"},
               {"threads_y", 1, 64, "threads of a block along y"},
               {"threads_c", 1, 64, "threads of a block along the output channels"},
               {"split_k", 1, 64, "shares of the input channels; must divide them"},
               {"stage_channels", 1, 64, "input channels per shared-memory chunk, at most"}};
    for (const KnobSpec &k : conv2d_launch_knobs()) v.knobs.push_back(k);
    // Bounds inference cannot tell that a block's output channels share one group, so a staged
    // window would span the next group and read past the input.
    v.unsupported = [](const Conv2dShape &s) {
        return s.group == 1 ? std::string() : "grouped convolutions cannot stage";
    };
    v.violated = [](const Conv2dShape &s, const TargetInfo &, const Knobs &knobs) -> std::string {
        if (s.in_channels % knobs.get("split_k") != 0)
            return "split_k " + std::to_string(knobs.get("split_k")) + " does not divide the " +
                   std::to_string(s.in_channels) + " input channels";
        const StagedConvTile t = resolve_staged_tile(s, pinned_knobs(knobs, TargetInfo{}));
        if (shared_floats(s, t) > kSharedFloats)
            return "the staged tile needs " + std::to_string(shared_floats(s, t) * 4) +
                   " bytes of shared memory, more than 48 KiB";
        return block_too_large(t.threads());
    };
    // The shape's tile (conv2d_staged_tile.h) around the knobs already set.
    v.complete = [](const Conv2dShape &s, const TargetInfo &target, Knobs &knobs) {
        Conv2dKnobs k = pinned_knobs(knobs, target);
        StagedConvTile t;
        try {
            t = resolve_staged_tile(s, k);
        } catch (const std::invalid_argument &) {
            // A split_k that does not divide the input channels: keep it for `violated` to name.
            Conv2dKnobs without_split = k;
            without_split.split_k = 0;
            t = resolve_staged_tile(s, without_split);
            t.split_k = k.split_k;
        }
        knobs = Knobs{{{"rows", t.rows},
                       {"cols", t.cols},
                       {"channels", t.channels},
                       {"threads_x", t.threads_x},
                       {"threads_y", t.threads_y},
                       {"threads_c", t.threads_c},
                       {"split_k", t.split_k},
                       {"stage_channels", t.stage_channels},
                       {"target_threads", k.target_threads},
                       {"registers", k.registers}}};
    };
    return v;
}

// InnerProduct: a block per output neuron and group of rows, `lanes` threads striding through
// the weight row (inner_product.h).
inline VariantSpec<InnerProductShape> inner_product_block_partials() {
    VariantSpec<InnerProductShape> v;
    v.name = "gpu_block_partials";
    v.sources = {"schedules/gpu/inner_product.h"};
    v.knobs = {{"lanes", 1, 256, "threads striding through one weight row"}};
    v.complete = [](const InnerProductShape &, const TargetInfo &, Knobs &k) {
        if (!k.has("lanes")) k.set("lanes", 64);
    };
    return v;
}

// Softmax: the channels' maximum and sum as `max_lanes` and `sum_lanes` interleaved partials,
// one thread each (softmax.h): by default a warp's worth, so that a slice of 1000 classes takes
// 32 steps per thread instead of 1000 on one thread.
inline constexpr int kSoftmaxLanes = 32;

inline VariantSpec<SoftmaxShape> softmax_direct() {
    VariantSpec<SoftmaxShape> v;
    v.name = "gpu_direct";
    v.sources = {"schedules/gpu/softmax.h", "schedules/gpu/space.h"};
    v.knobs = {{"max_lanes", 1, 64, "interleaved partial maxima over the channels, a thread each"},
               {"sum_lanes", 1, 64, "interleaved partial sums of the exponentials, a thread each"}};
    v.complete = [](const SoftmaxShape &s, const TargetInfo &, Knobs &k) {
        const int lanes = std::min(kSoftmaxLanes, s.channels);
        if (!k.has("max_lanes")) k.set("max_lanes", lanes);
        if (!k.has("sum_lanes")) k.set("sum_lanes", lanes);
    };
    return v;
}

inline FamilySpace space() {
    FamilySpace f;
    f.name = "gpu";
    OpSpace<Conv2dShape> conv;
    conv.variants = {conv2d_register_tile(), conv2d_staged(), conv2d_channel_lanes(), conv2d_depthwise()};
    add_conv2d_gemm_variants(conv);
    conv.variants.push_back(conv2d_winograd(2));
    conv.variants.push_back(conv2d_winograd(4));
    conv.variants.push_back(conv2d_winograd(2, 5));
    // Staging lost on most of the H100 conv suite (Conv2dKnobs::stage_channels): never the default.
    conv.default_variant = [](const Conv2dShape &s, const TargetInfo &) {
        if (ops::is_depthwise(s)) return std::string(kGpuDepthwise);
        const std::string gemm = conv2d_gemm_default(s);
        if (!gemm.empty()) return gemm;
        if (winograd_by_default(s)) return std::string("gpu_winograd_f2");
        return std::string(channel_lanes_by_default(s) ? kGpuChannelLanes : "gpu_register_tile");
    };
    f.op<Conv2dShape>() = conv;
    f.op<Conv2dInt8Shape>() = single_variant(conv2d_int8_channel_lanes());
    f.op<Conv2dFp16Shape>() = single_variant(conv2d_fp16_channel_lanes());
    f.op<Conv2dPoolShape>() = conv2d_pool_space({conv2d_pool_windows()});
    f.op<PoolingShape>() = single_variant(plain_variant<PoolingShape>("gpu_direct", {"schedules/gpu/pooling.h"}));
    f.op<PadShape>() = single_variant(plain_variant<PadShape>("gpu_direct", {"schedules/gpu/pad.h"}));
    f.op<LRNShape>() = single_variant(plain_variant<LRNShape>("gpu_direct", {"schedules/gpu/lrn.h"}));
    f.op<InnerProductShape>() = inner_product_space(inner_product_block_partials());
    f.op<GemmShape>() = gemm_space();
    f.op<SoftmaxShape>() = single_variant(softmax_direct());
    f.op<ConcatShape>() = single_variant(plain_variant<ConcatShape>("gpu_direct", {"schedules/gpu/concat.h"}));
    f.op<Deconv2dShape>() = single_variant(plain_variant<Deconv2dShape>("gpu_direct", {"schedules/gpu/deconv2d.h"}));
    f.op<ResizeShape>() = single_variant(plain_variant<ResizeShape>("gpu_direct", {"schedules/gpu/resize.h"}));
    f.op<RearrangeShape>() = single_variant(plain_variant<RearrangeShape>("gpu_direct", {"schedules/gpu/rearrange.h"}));
    f.op<ReluShape>() = single_variant(plain_variant<ReluShape>("gpu_direct", {"schedules/gpu/elementwise.h"}));
    f.op<ActivationShape>() =
        single_variant(plain_variant<ActivationShape>("gpu_direct", {"schedules/gpu/elementwise.h"}));
    f.op<EltwiseShape>() = single_variant(plain_variant<EltwiseShape>("gpu_direct", {"schedules/gpu/elementwise.h"}));
    f.op<ChannelAffineShape>() =
        single_variant(plain_variant<ChannelAffineShape>("gpu_direct", {"schedules/gpu/elementwise.h"}));
    return f;
}

}  // namespace cortado::schedules::gpu
