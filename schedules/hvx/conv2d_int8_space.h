// The int8 convolution of the HVX family (Halide-free): its knobs, limits and default rule
// (algorithm: generators/conv2d_int8.h, schedule: conv2d_int8.h). The tile is `cols` output
// channels (whole vectors of 32) by `rows` pixels, one 32-lane accumulator vector each; HVX has
// 32 vector registers, and the tile, the broadcast activations and a weight vector per column
// must fit in them.
#pragma once

#include <string>

#include "ops/conv2d_int8.h"
#include "schedules/space.h"

namespace cortado::schedules::hvx {

inline constexpr const char *kInt8ChannelLanes = "hvx_int8_channel_lanes";
inline constexpr int kInt32Lanes = 32;  // 32-bit lanes of one 128-byte vector
inline constexpr int kTileAccumulators = 24;

inline VariantSpec<Conv2dInt8Shape> conv2d_int8_channel_lanes() {
    VariantSpec<Conv2dInt8Shape> v;
    v.name = kInt8ChannelLanes;
    v.form = ops::Form::channel_lanes();
    v.sources = {"schedules/hvx/conv2d_int8.h", "schedules/hvx/conv2d_int8_space.h"};
    v.weights = ops::WeightPacking::Int8Panels;
    v.knobs = {{"rows", 1, 16, "output pixels per register tile"},
               {"cols", kInt32Lanes, 4 * kInt32Lanes, "output channels per register tile, whole vectors of 32"}};
    v.tolerance = 1e-3f;  // as the CPU families' int8 variant (schedules/cpu/conv2d_int8_space.h)
    v.unsupported = [](const Conv2dInt8Shape &s) -> std::string {
        if (ops::panel_fits_groups(s.conv, kInt32Lanes)) return "";
        return "a group's " + std::to_string(s.conv.out_channels / s.conv.group) +
               " output channels are not whole vectors of " + std::to_string(kInt32Lanes);
    };
    v.violated = [](const Conv2dInt8Shape &s, const TargetInfo &, const Knobs &k) -> std::string {
        const int cols = k.get("cols"), rows = k.get("rows");
        if (cols % kInt32Lanes != 0) return "cols must be whole vectors of " + std::to_string(kInt32Lanes);
        if (!ops::panel_fits_groups(s.conv, cols)) return "a panel of cols output channels spans two groups";
        if (cols / kInt32Lanes * rows > kTileAccumulators)
            return "cols / 32 x rows accumulators exceed the " + std::to_string(kTileAccumulators) + " registers";
        return "";
    };
    v.complete = [](const Conv2dInt8Shape &, const TargetInfo &, Knobs &k) {
        if (!k.has("cols")) k.set("cols", kInt32Lanes);
        if (!k.has("rows")) k.set("rows", 8);
    };
    return v;
}

}  // namespace cortado::schedules::hvx
