// The half-precision convolution of the CPU families (Halide-free): its knobs, limits and
// default rule (algorithm: generators/conv2d_fp16.h, schedule: conv2d_fp16.h). The register
// tile is the channel-lanes one's, `cols` output channels by `rows` pixels, with half the rows
// it would have in fp32: each output has an fp32 sum and a chunk's sum in registers.
#pragma once

#include <algorithm>

#include "ops/conv2d_fp16.h"
#include "schedules/cpu/conv2d_channel_lanes_space.h"

namespace cortado::schedules::cpu {

inline constexpr const char *kFp16ChannelLanes = "cpu_fp16_channel_lanes";
// Reduction positions a half sum covers by default, as on the GPU (gpu/conv2d_fp16_space.h).
inline constexpr int kFp16ChunkPositions = 96;

inline VariantSpec<Conv2dFp16Shape> conv2d_fp16_channel_lanes(RegisterCount registers) {
    VariantSpec<Conv2dFp16Shape> v;
    v.name = kFp16ChannelLanes;
    v.form = ops::Form::channel_lanes();
    v.sources = {"schedules/cpu/conv2d_fp16.h", "schedules/cpu/conv2d_fp16_space.h"};
    v.weights = ops::WeightPacking::Fp16Panels;
    v.knobs = channel_lanes_knobs();
    v.knobs.push_back({"chunk", 1, 4096, "input channels a half sum covers before it is added in fp32"});
    v.knobs.push_back({"half", 0, 1, "1: products and chunk sums in half (arm_fp16); 0: in fp32 on the halves"});
    v.tolerance = 1e-2f;  // as the GPU family's (gpu/conv2d_fp16_space.h)
    const VariantSpec<Conv2dShape> fp32 = conv2d_channel_lanes(registers);
    v.unsupported = [fp32](const Conv2dFp16Shape &s) { return fp32.unsupported(s.conv); };
    v.complete = [fp32](const Conv2dFp16Shape &s, const TargetInfo &t, Knobs &k) {
        const bool chosen_rows = k.has("rows");
        fp32.complete(s.conv, t, k);
        if (!chosen_rows) k.set("rows", std::max(1, k.get("rows") / 2));
        if (!k.has("half")) k.set("half", t.has_feature("arm_fp16") ? 1 : 0);
        const int area = s.conv.kernel_h * s.conv.kernel_w;
        if (!k.has("chunk")) k.set("chunk", ops::fp16_chunk_channels(s.conv, std::max(1, kFp16ChunkPositions / area)));
    };
    v.violated = [fp32](const Conv2dFp16Shape &s, const TargetInfo &t, const Knobs &k) -> std::string {
        if (k.get("half") && !t.has_feature("arm_fp16"))
            return "half products need a CPU with half arithmetic (arm_fp16); x86 only converts halves";
        if ((s.conv.in_channels / s.conv.group) % k.get("chunk") != 0)
            return "chunk does not divide a group's input channels";
        return fp32.violated(s.conv, t, k);
    };
    return v;
}

}  // namespace cortado::schedules::cpu
