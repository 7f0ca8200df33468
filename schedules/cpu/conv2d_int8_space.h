// The int8 convolution of the CPU families (Halide-free): its knobs, limits and default rule
// (algorithm: generators/conv2d_int8.h, schedule: conv2d_int8.h). The register tile is the
// channel-lanes one's, `cols` output channels by `rows` pixels, with 32-bit integer accumulators
// in place of floats: the same lanes a vector, the same registers.
#pragma once

#include "ops/conv2d_int8.h"
#include "schedules/cpu/conv2d_channel_lanes_space.h"

namespace cortado::schedules::cpu {

inline constexpr const char *kInt8ChannelLanes = "cpu_int8_channel_lanes";

inline VariantSpec<Conv2dInt8Shape> conv2d_int8_channel_lanes(RegisterCount registers) {
    VariantSpec<Conv2dInt8Shape> v;
    v.name = kInt8ChannelLanes;
    v.form = ops::Form::channel_lanes();
    v.sources = {"schedules/cpu/conv2d_int8.h", "schedules/cpu/conv2d_int8_space.h"};
    v.weights = ops::WeightPacking::Int8Panels;
    v.knobs = channel_lanes_knobs();
    // Against its own int8 reference (ops/conv2d_int8.h), on the input the network gave it
    // (blob_check.h): the integer sums are exact. What is left: the network quantizes weights
    // after folding a BatchNorm or Scale into them, the reference before, and a weight that float
    // rounding puts on the other side of a step's edge moves by a step. int8 differs from fp32 by
    // about ten times this, so the check still tells the two apart.
    v.tolerance = 1e-3f;
    const VariantSpec<Conv2dShape> fp32 = conv2d_channel_lanes(registers);
    v.unsupported = [fp32](const Conv2dInt8Shape &s) { return fp32.unsupported(s.conv); };
    v.complete = [fp32](const Conv2dInt8Shape &s, const TargetInfo &t, Knobs &k) { fp32.complete(s.conv, t, k); };
    v.violated = [fp32](const Conv2dInt8Shape &s, const TargetInfo &t, const Knobs &k) {
        return fp32.violated(s.conv, t, k);
    };
    return v;
}

}  // namespace cortado::schedules::cpu
