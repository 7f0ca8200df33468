// The int8 convolution of the GPU family (Halide-free): its knobs, limits and default rule
// (algorithm: generators/conv2d_int8.h, schedule: conv2d_int8.h). A thread's tile is `cols`
// output channels (one packed panel) by `rows` pixels; a block is `threads_q` pixel tiles by
// `threads_c` panels.
#pragma once

#include <algorithm>
#include <string>

#include "ops/conv2d_int8.h"
#include "ops/gemm.h"
#include "schedules/gpu/limits.h"
#include "schedules/space.h"

namespace cortado::schedules::gpu {

inline constexpr const char *kGpuInt8ChannelLanes = "gpu_int8_channel_lanes";
// Threads the default tile aims for, as the fp32 variants' split of the reduction does
// (conv2d_tile_rule.h): 64k, 132 SMs x 512.
inline constexpr long kInt8TargetThreads = 65536;

inline VariantSpec<Conv2dInt8Shape> conv2d_int8_channel_lanes() {
    VariantSpec<Conv2dInt8Shape> v;
    v.name = kGpuInt8ChannelLanes;
    v.form = ops::Form::channel_lanes();
    v.sources = {"schedules/gpu/conv2d_int8.h", "schedules/gpu/conv2d_int8_space.h", "schedules/gpu/limits.h",
                 "schedules/gpu/tiling.h"};
    v.weights = ops::WeightPacking::Int8Panels;
    v.knobs = {{"cols", 1, 16, "output channels per thread (one packed panel)"},
               {"rows", 1, 16, "output pixels per thread (consecutive in the image, across rows)"},
               {"threads_q", 1, 1024, "threads of a block along the pixels"},
               {"threads_c", 1, 1024, "threads of a block along the panels"},
               {"registers", 16, 255, "registers per thread the tile may plan for"}};
    v.tolerance = 1e-3f;  // as the CPU families' int8 variant (schedules/cpu/conv2d_int8_space.h)
    v.violated = [](const Conv2dInt8Shape &s, const TargetInfo &, const Knobs &k) -> std::string {
        if (!ops::panel_fits_groups(s.conv, k.get("cols"))) return "a panel of cols output channels spans two groups";
        if (k.get("cols") * k.get("rows") > k.get("registers") - 32)
            return "cols x rows accumulators exceed the registers less 32";
        return block_too_large(k.get("threads_q") * k.get("threads_c"));
    };
    v.complete = [](const Conv2dInt8Shape &s, const TargetInfo &t, Knobs &k) {
        if (!k.has("registers")) k.set("registers", register_budget(t));
        const int pixels = s.conv.out_w * s.conv.out_h, accumulators = k.get("registers") - 32;
        if (!k.has("cols")) {  // 4, as the fp32 channel-lanes variant, or the widest of 2, 1 that fits
            int cols = 4;
            while (cols > 1 && !ops::panel_fits_groups(s.conv, cols)) cols /= 2;
            k.set("cols", cols);
        }
        const long panels = ops::panel_count(s.conv.out_channels, k.get("cols"));
        const auto threads = [&](int rows) { return long(s.conv.batch) * panels * ((pixels + rows - 1) / rows); };
        if (!k.has("rows")) {
            // 8 pixels (4 for kernels of 7x7 and more), fewer where the layer would not fill the
            // device: a thread per tile, about kTargetThreads of them.
            int rows = std::min(
                {s.conv.kernel_h * s.conv.kernel_w >= 49 ? 4 : 8, pixels, std::max(1, accumulators / k.get("cols"))});
            while (rows > 1 && threads(rows) < kInt8TargetThreads) rows /= 2;
            k.set("rows", rows);
        }
        const int tiles = (pixels + k.get("rows") - 1) / k.get("rows");
        if (!k.has("threads_q")) k.set("threads_q", std::min(32, tiles));
        if (!k.has("threads_c")) k.set("threads_c", std::max(1, 128 / k.get("threads_q")));
    };
    return v;
}

}  // namespace cortado::schedules::gpu
