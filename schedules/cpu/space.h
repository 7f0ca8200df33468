// The generic CPU family: a simple correct schedule for every op on any CPU Halide targets,
// written in the target's vector width. A new CPU family starts from this space and overrides
// only what it tunes (x86/space.h, arm/space.h); a target description with
// `schedule_family = cpu` runs on it unchanged.
#pragma once

#include <algorithm>

#include "schedules/cpu/conv2d_fp16_space.h"
#include "schedules/cpu/conv2d_int8_space.h"
#include "schedules/cpu/conv2d_pool_space.h"
#include "schedules/cpu/conv2d_space.h"
#include "schedules/space.h"

namespace cortado::schedules::cpu {

// conv2d: the register-tiled direct convolution (conv2d_register_tile.h). The generic tile, 4
// output channels x 1 vector, needs 4 accumulators + 1 input + 1 broadcast weight: it fits
// any SIMD register file.
// `channel_block(target)` sizes the tile to the family's register file.
inline VariantSpec<Conv2dShape> conv2d_register_tile(std::function<int(const TargetInfo &)> channel_block,
                                                     int vectors_x) {
    VariantSpec<Conv2dShape> v;
    v.name = "cpu_register_tile";
    v.sources = {"schedules/cpu/conv2d_register_tile.h", "schedules/cpu/conv2d_space.h"};
    v.knobs = {{"channel_block", 1, 32, "output channels per register tile"},
               {"vectors_x", 1, 8, "vectors of output x per register tile"}};
    v.complete = [channel_block, vectors_x](const Conv2dShape &, const TargetInfo &t, Knobs &k) {
        if (!k.has("channel_block")) k.set("channel_block", channel_block(t));
        if (!k.has("vectors_x")) k.set("vectors_x", vectors_x);
    };
    return v;
}

// InnerProduct: `lanes` interleaved partial sums per dot product, one vector by default.
inline VariantSpec<InnerProductShape> inner_product_lane_partials() {
    VariantSpec<InnerProductShape> v;
    v.name = "cpu_lane_partials";
    v.sources = {"schedules/cpu/inner_product.h", "schedules/cpu/space.h"};
    v.knobs = {{"lanes", 1, 64, "interleaved partial sums per dot product"}};
    v.complete = [](const InnerProductShape &, const TargetInfo &t, Knobs &k) {
        if (!k.has("lanes")) k.set("lanes", t.float_lanes());
    };
    return v;
}

// Softmax: the channel maximum as `max_lanes` interleaved partial maxima, a vector of them when
// slices are too narrow to vectorise along x but have a vector's worth of channels.
inline VariantSpec<SoftmaxShape> softmax_direct() {
    VariantSpec<SoftmaxShape> v;
    v.name = "cpu_direct";
    v.sources = {"schedules/cpu/softmax.h", "schedules/cpu/space.h"};
    v.knobs = {{"max_lanes", 1, 64, "interleaved partial maxima over the channels"}};
    v.complete = [](const SoftmaxShape &s, const TargetInfo &t, Knobs &k) {
        const int vector = t.float_lanes();
        if (!k.has("max_lanes")) k.set("max_lanes", s.inner < vector && s.channels >= vector ? vector : 1);
    };
    return v;
}

// `registers`: the vector registers the GEMM's register tile may fill (16 for an unknown CPU);
// `direct`: the convolution's register-tiled variant, sized for the family.
inline FamilySpace space(
    RegisterCount registers = [](const TargetInfo &) { return 16; },
    VariantSpec<Conv2dShape> direct = conv2d_register_tile([](const TargetInfo &) { return 4; }, 1)) {
    FamilySpace f;
    f.name = "cpu";
    f.op<Conv2dShape>() = conv2d_space(std::move(direct), registers);
    f.op<Conv2dInt8Shape>() = conv2d_int8_space(registers);
    f.op<Conv2dFp16Shape>() = single_variant(conv2d_fp16_channel_lanes(registers));
    f.op<Conv2dPoolShape>() = conv2d_pool_space({conv2d_pool_rows(registers)});
    auto pooling = plain_variant<PoolingShape>("cpu_direct", {"schedules/cpu/pooling.h"});
    pooling.channel_blocks = true;  // reads and writes blocks of channels (schedule_blocked_pooling)
    f.op<PoolingShape>() = single_variant(std::move(pooling));
    f.op<PadShape>() = single_variant(plain_variant<PadShape>("cpu_direct", {"schedules/cpu/pad.h"}));
    f.op<LRNShape>() = single_variant(plain_variant<LRNShape>("cpu_direct", {"schedules/cpu/lrn.h"}));
    f.op<InnerProductShape>() = inner_product_space(inner_product_lane_partials(), registers);
    f.op<SoftmaxShape>() = single_variant(softmax_direct());
    f.op<ConcatShape>() = single_variant(plain_variant<ConcatShape>("cpu_direct", {"schedules/cpu/concat.h"}));
    f.op<Deconv2dShape>() = single_variant(plain_variant<Deconv2dShape>("cpu_direct", {"schedules/cpu/deconv2d.h"}));
    f.op<ResizeShape>() = single_variant(plain_variant<ResizeShape>("cpu_direct", {"schedules/cpu/resize.h"}));
    f.op<RearrangeShape>() = single_variant(plain_variant<RearrangeShape>("cpu_direct", {"schedules/cpu/rearrange.h"}));
    f.op<ReluShape>() = single_variant(plain_variant<ReluShape>("cpu_direct", {"schedules/cpu/elementwise.h"}));
    f.op<ActivationShape>() =
        single_variant(plain_variant<ActivationShape>("cpu_direct", {"schedules/cpu/elementwise.h"}));
    f.op<EltwiseShape>() = single_variant(plain_variant<EltwiseShape>("cpu_direct", {"schedules/cpu/elementwise.h"}));
    auto affine = plain_variant<ChannelAffineShape>("cpu_direct", {"schedules/cpu/elementwise.h"});
    affine.channel_blocks = true;  // reads and writes blocks of channels (schedule_channel_affine)
    f.op<ChannelAffineShape>() = single_variant(std::move(affine));
    f.op<GemmShape>() = gemm_space(registers);
    return f;
}

}  // namespace cortado::schedules::cpu
