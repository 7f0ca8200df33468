// The depthwise convolution of the GPU family (Halide-free): its knobs and default rule
// (schedule: conv2d_depthwise.h).
#pragma once

#include <algorithm>
#include <string>

#include "ops/depthwise.h"
#include "schedules/space.h"

namespace cortado::schedules::gpu {

inline constexpr const char *kGpuDepthwise = "gpu_depthwise";

inline VariantSpec<Conv2dShape> conv2d_depthwise() {
    VariantSpec<Conv2dShape> v;
    v.name = kGpuDepthwise;
    v.sources = {"schedules/gpu/conv2d_depthwise.h", "schedules/gpu/conv2d_depthwise_space.h"};
    v.knobs = {{"threads", 32, 1024, "threads per block, over the pixels of one channel plane"},
               {"rows", 1, 8, "outputs per thread, down a column"},
               {"cols", 1, 8, "outputs per thread, along a row"},
               {"channels", 1, 64, "channel planes per block"}};
    v.unsupported = [](const Conv2dShape &s) {
        return ops::is_depthwise(s) ? "" : "not a depthwise layer (one input channel per group)";
    };
    v.complete = [](const Conv2dShape &s, const TargetInfo &, Knobs &k) {
        // Two rows per thread at stride 1, where they share two of their three window rows;
        // one at larger strides, where they share none.
        if (!k.has("rows")) k.set("rows", s.stride_h == 1 && s.kernel_h > 1 ? 2 : 1);
        if (!k.has("cols")) k.set("cols", 1);
        // A plane's thread tiles in whole warps, at most 256 threads.
        const int columns =
            (s.out_w + k.get("cols") - 1) / k.get("cols") * ((s.out_h + k.get("rows") - 1) / k.get("rows"));
        if (!k.has("threads")) k.set("threads", std::clamp((columns + 31) / 32 * 32, 32, 256));
        // Small planes share a block, up to 256 threads.
        if (!k.has("channels")) k.set("channels", std::clamp(256 / k.get("threads"), 1, s.out_channels));
    };
    v.violated = [](const Conv2dShape &, const TargetInfo &, const Knobs &k) -> std::string {
        if (k.get("threads") % 32 != 0)
            return "threads = " + std::to_string(k.get("threads")) + " is not a whole number of warps";
        if (k.get("threads") * k.get("channels") > 1024)
            return "threads x channels = " + std::to_string(k.get("threads") * k.get("channels")) +
                   ", more than the 1024 threads of a block";
        return "";
    };
    return v;
}

}  // namespace cortado::schedules::gpu
