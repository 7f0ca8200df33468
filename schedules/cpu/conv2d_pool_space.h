// The fused convolution and MAX pooling of the CPU families (Halide-free; ops/conv2d_pool.h):
// cpu_conv_pool_rows (schedule: conv2d_pool.h), beside `unfused` (schedules/conv2d_pool_space.h),
// chosen only by a tuning record or a knob override.
#pragma once

#include <algorithm>

#include <functional>
#include <string>

#include "schedules/conv2d_pool_space.h"

namespace cortado::schedules::cpu {

inline constexpr const char *kConvPoolRows = "cpu_conv_pool_rows";

// The register tile as cpu_register_tile's on the family (`channel_block` channels by two
// vectors), and tasks of pooled rows that give each core 8 at least.
inline VariantSpec<Conv2dPoolShape> conv2d_pool_rows(std::function<int(const TargetInfo &)> registers) {
    VariantSpec<Conv2dPoolShape> v;
    v.name = kConvPoolRows;
    v.sources = {"schedules/cpu/conv2d_pool.h", "schedules/cpu/conv2d_pool_space.h"};
    v.knobs = {{"channel_block", 1, 32, "output channels per register tile and task"},
               {"vectors_x", 1, 8, "vectors of the convolution's x per register tile"},
               {"rows", 1, 1 << 16, "pooled rows per task", true}};
    v.complete = [registers](const Conv2dPoolShape &s, const TargetInfo &t, Knobs &k) {
        if (!k.has("vectors_x")) k.set("vectors_x", 2);
        // Accumulators, the input vectors and a broadcast weight in the register file.
        if (!k.has("channel_block"))
            k.set("channel_block", std::clamp((registers(t) - 2) / k.get("vectors_x") - 1, 1, 8));
        if (!k.has("rows")) {
            const long long blocks = (s.conv.out_channels + k.get("channel_block") - 1) / k.get("channel_block");
            const long long want = least_direct_tasks(t.cores);
            const long long per_image = std::max(1LL, (want + s.conv.batch - 1) / s.conv.batch);
            const long long strips = std::max(1LL, (per_image + blocks - 1) / blocks);
            k.set("rows", int(std::max(1LL, (s.pool_out_h + strips - 1) / strips)));
        }
    };
    v.violated = [registers](const Conv2dPoolShape &, const TargetInfo &t, const Knobs &k) -> std::string {
        if (k.get("channel_block") * k.get("vectors_x") + k.get("vectors_x") + 1 > registers(t))
            return "the register tile's accumulators, inputs and weight exceed the " + std::to_string(registers(t)) +
                   " vector registers";
        return "";
    };
    return v;
}

}  // namespace cortado::schedules::cpu
