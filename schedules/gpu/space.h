// The GPU family (CUDA and OpenCL): every op's variants, knob spaces and default rules.
#pragma once

#include <string>

#include "schedules/gpu/conv2d_tile_rule.h"
#include "schedules/space.h"

namespace cortado::schedules::gpu {

// Knobs both convolution variants read.
inline std::vector<KnobSpec> conv2d_launch_knobs() {
    return {{"target_threads", 1024, 1 << 22, "threads the split of the reduction aims for"},
            {"registers", 16, 255, "registers per thread the tile may plan for"}};
}

// 255 is the most a CUDA thread can address. Halide 21's CUDA runtime caps every kernel at 64
// unless the network runtime raises the cap (runtime/cuda_register_cap.h).
inline int register_budget(const TargetInfo &t) { return t.registers_per_thread > 0 ? t.registers_per_thread : 64; }

inline std::string block_too_large(int threads) {
    return threads > 1024 ? "a block of " + std::to_string(threads) + " threads; CUDA and OpenCL allow 1024" : "";
}

inline VariantSpec<Conv2dShape> conv2d_register_tile() {
    VariantSpec<Conv2dShape> v;
    v.name = "gpu_register_tile";
    v.knobs = {{"rows", 1, 16, "output rows per thread"},
               {"cols", 1, 8, "adjacent output x positions per thread"},
               {"channels", 1, 16, "output channels per thread"},
               {"threads_x", 1, 256, "threads of a block along x"},
               {"threads_c", 1, 64, "threads of a block along the output channels"},
               {"split_k", 1, 64, "shares of the input channels, summed by a second kernel"}};
    for (const KnobSpec &k : conv2d_launch_knobs()) v.knobs.push_back(k);
    v.violated = [](const Conv2dShape &, const Knobs &k) {
        return block_too_large(k.get("threads_x") * k.get("threads_c"));
    };
    v.complete = [](const Conv2dShape &s, const TargetInfo &t, Knobs &knobs) {
        Conv2dKnobs k;
        const auto pinned = [&](const char *name, int &field) {
            if (knobs.has(name)) field = knobs.get(name);
        };
        k.registers = register_budget(t);
        pinned("rows", k.rows), pinned("cols", k.cols), pinned("channels", k.channels);
        pinned("threads_x", k.threads_x), pinned("threads_c", k.threads_c), pinned("split_k", k.split_k);
        pinned("target_threads", k.target_threads), pinned("registers", k.registers);
        k = register_tile(s, k);
        if (k.split_k <= 0) k.split_k = split_for(s, tile_threads(s, k.cols, k.rows, k.channels), k.target_threads);
        const Knobs resolved{{{"rows", k.rows}, {"cols", k.cols}, {"channels", k.channels}, {"threads_x", k.threads_x},
                              {"threads_c", k.threads_c}, {"split_k", k.split_k},
                              {"target_threads", k.target_threads}, {"registers", k.registers}}};
        knobs = resolved;
    };
    return v;
}

// The staged variant resolves its tile in the schedule (conv2d_staged.h): its tile knobs are
// 0, "from the shape", unless set.
inline VariantSpec<Conv2dShape> conv2d_staged() {
    VariantSpec<Conv2dShape> v;
    v.name = "gpu_staged";
    v.knobs = {{"rows", 0, 16, "output rows per thread (0: from the shape)"},
               {"cols", 0, 8, "adjacent output x positions per thread (0: from the shape)"},
               {"channels", 0, 16, "output channels per thread (0: from the shape)"},
               {"threads_x", 0, 256, "threads of a block along x (0: from the shape)"},
               {"threads_y", 0, 64, "threads of a block along y (0: from the shape)"},
               {"threads_c", 0, 64, "threads of a block along the output channels (0: from the shape)"},
               {"split_k", 0, 64, "shares of the input channels; must divide them (0: from the shape)"},
               {"stage_channels", 1, 64, "input channels per shared-memory chunk, at most"}};
    for (const KnobSpec &k : conv2d_launch_knobs()) v.knobs.push_back(k);
    // Bounds inference cannot tell that a block's output channels share one group, so a staged
    // window would span the next group and read past the input.
    v.unsupported = [](const Conv2dShape &s) {
        return s.group == 1 ? std::string() : "grouped convolutions cannot stage";
    };
    v.violated = [](const Conv2dShape &s, const Knobs &k) -> std::string {
        if (k.get("split_k") > 0 && s.in_channels % k.get("split_k") != 0)
            return "split_k " + std::to_string(k.get("split_k")) + " does not divide the " +
                   std::to_string(s.in_channels) + " input channels";
        return block_too_large(std::max(1, k.get("threads_x")) * std::max(1, k.get("threads_y")) *
                               std::max(1, k.get("threads_c")));
    };
    v.complete = [](const Conv2dShape &, const TargetInfo &t, Knobs &k) {
        Knobs resolved;
        for (const char *name : {"rows", "cols", "channels", "threads_x", "threads_y", "threads_c", "split_k"})
            resolved.set(name, k.has(name) ? k.get(name) : 0);
        // 4 channels per chunk: Overfeat L6 ran 5% faster than with 8 (smaller blocks, more per SM).
        resolved.set("stage_channels", k.has("stage_channels") ? k.get("stage_channels") : 4);
        resolved.set("target_threads", k.has("target_threads") ? k.get("target_threads") : Conv2dKnobs{}.target_threads);
        resolved.set("registers", k.has("registers") ? k.get("registers") : register_budget(t));
        k = resolved;
    };
    return v;
}

// InnerProduct: a block per output neuron and group of rows, `lanes` threads striding through
// the weight row (inner_product.h).
inline VariantSpec<InnerProductShape> inner_product_block_partials() {
    VariantSpec<InnerProductShape> v;
    v.name = "gpu_block_partials";
    v.knobs = {{"lanes", 1, 256, "threads striding through one weight row"}};
    v.complete = [](const InnerProductShape &, const TargetInfo &, Knobs &k) {
        if (!k.has("lanes")) k.set("lanes", 64);
    };
    return v;
}

inline FamilySpace space() {
    FamilySpace f;
    f.name = "gpu";
    f.description = "GPUs through CUDA or OpenCL";
    OpSpace<Conv2dShape> conv;
    conv.variants = {conv2d_register_tile(), conv2d_staged()};
    // Staging lost on most of the H100 conv suite (Conv2dKnobs::stage_channels): never the default.
    conv.default_variant = [](const Conv2dShape &, const TargetInfo &) { return std::string("gpu_register_tile"); };
    f.op<Conv2dShape>() = conv;
    f.op<PoolingShape>() = single_variant(plain_variant<PoolingShape>("gpu_direct"));
    f.op<LRNShape>() = single_variant(plain_variant<LRNShape>("gpu_direct"));
    f.op<InnerProductShape>() = single_variant(inner_product_block_partials());
    f.op<SoftmaxShape>() = single_variant(plain_variant<SoftmaxShape>("gpu_direct"));
    f.op<ConcatShape>() = single_variant(plain_variant<ConcatShape>("gpu_direct"));
    f.op<ReluShape>() = single_variant(plain_variant<ReluShape>("gpu_direct"));
    f.op<EltwiseShape>() = single_variant(plain_variant<EltwiseShape>("gpu_direct"));
    f.op<ChannelAffineShape>() = single_variant(plain_variant<ChannelAffineShape>("gpu_direct"));
    return f;
}

}  // namespace cortado::schedules::gpu
