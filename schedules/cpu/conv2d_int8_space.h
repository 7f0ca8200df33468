// The int8 convolution of the CPU families (Halide-free): its knobs, limits and default rule
// (algorithm: generators/conv2d_int8.h, schedule: conv2d_int8.h). The register tile is the
// channel-lanes one's, `cols` output channels by `rows` pixels, with 32-bit integer accumulators
// in place of floats: the same lanes a vector, the same registers. Two variants: each word of
// four products summed at once (exact for any weights; vpdpbusd where x86 has VNNI), and, for
// x86 without it, the pairs summed in 16 bits first (vpmaddubsw), which needs 7-bit weights.
#pragma once

#include "ops/conv2d_int8.h"
#include "schedules/cpu/conv2d_channel_lanes_space.h"

namespace cortado::schedules::cpu {

inline constexpr const char *kInt8ChannelLanes = "cpu_int8_channel_lanes";
inline constexpr const char *kInt8PairSums = "cpu_int8_pair_sums";

// Whether the target's int8 convolutions take 7-bit weights and sum them in pairs: x86 CPUs
// without VNNI (Halide emits vpdpbusd for avx512_zen4 and the later feature sets that imply it).
// Elsewhere the exact four-way sum is one instruction (vpdpbusd, sdot, vrmpy, dp4a) or no slower.
inline bool int8_sums_pairs(const TargetInfo &t) {
    return t.family != "gpu" && t.family != "hvx" && t.halide_target.rfind("x86-", 0) == 0 &&
           !t.has_feature("avx512_zen4") && !t.has_feature("avx512_sapphirerapids") && !t.has_feature("avx512_zen5") &&
           !t.has_feature("avx10_1") && (t.has_feature("sse41") || t.has_feature("avx2"));
}

inline VariantSpec<Conv2dInt8Shape> conv2d_int8_channel_lanes(RegisterCount registers,
                                                              const char *name = kInt8ChannelLanes) {
    VariantSpec<Conv2dInt8Shape> v;
    v.name = name;
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

// Its tile is the channel-lanes one sized for two registers fewer, since a step holds the vector
// of ones vpmaddwd multiplies by and the pairs' sums beside the accumulators, and two vectors of
// channels wide where the groups allow: on AVX2's 16 registers, 5 pixels by 2 vectors. A sixth
// row would push the ones back to memory, and one-vector tiles run about half as fast
// (docs/PERFORMANCE.md, int8 on an AVX2 CPU).
inline VariantSpec<Conv2dInt8Shape> conv2d_int8_pair_sums(RegisterCount registers) {
    const RegisterCount fewer = [registers](const TargetInfo &t) { return registers(t) - 2; };
    VariantSpec<Conv2dInt8Shape> v = conv2d_int8_channel_lanes(fewer, kInt8PairSums);
    v.form = ops::Form::pair_sums();
    v.complete = [rule = v.complete](const Conv2dInt8Shape &s, const TargetInfo &t, Knobs &k) {
        const int two_vectors = 2 * t.float_lanes();
        if (!k.has("cols") && ops::panel_fits_groups(s.conv, two_vectors)) k.set("cols", two_vectors);
        rule(s, t, k);
    };
    v.unsupported = [fp32 = v.unsupported](const Conv2dInt8Shape &s) -> std::string {
        if (s.weight_levels > ops::kInt8PairSumLevels)
            return "its weights have " + std::to_string(s.weight_levels) + " levels; pair sums need at most " +
                   std::to_string(ops::kInt8PairSumLevels);
        return fp32(s);
    };
    v.violated = [fp32 = v.violated](const Conv2dInt8Shape &s, const TargetInfo &t, const Knobs &k) -> std::string {
        if (t.halide_target.rfind("x86-", 0) != 0) return "pair sums are x86's (vpmaddubsw)";
        return fp32(s, t, k);
    };
    return v;
}

// Pair sums where the shape's weights allow them and the target is an x86 without VNNI.
inline OpSpace<Conv2dInt8Shape> conv2d_int8_space(RegisterCount registers) {
    OpSpace<Conv2dInt8Shape> space;
    space.variants = {conv2d_int8_channel_lanes(registers), conv2d_int8_pair_sums(registers)};
    space.default_variant = [](const Conv2dInt8Shape &s, const TargetInfo &t) {
        return std::string(s.weight_levels <= ops::kInt8PairSumLevels && int8_sums_pairs(t) ? kInt8PairSums
                                                                                            : kInt8ChannelLanes);
    };
    return space;
}

}  // namespace cortado::schedules::cpu
