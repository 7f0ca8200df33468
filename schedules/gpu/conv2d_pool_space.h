// The fused convolution and MAX pooling of the GPU family (Halide-free; ops/conv2d_pool.h):
// gpu_conv_pool (schedule: conv2d_pool.h), beside `unfused` (schedules/conv2d_pool_space.h),
// chosen only by a tuning record or a knob override.
#pragma once

#include <algorithm>
#include <string>

#include "schedules/conv2d_pool_space.h"
#include "schedules/gpu/limits.h"

namespace cortado::schedules::gpu {

inline constexpr const char *kGpuConvPool = "gpu_conv_pool";

inline VariantSpec<Conv2dPoolShape> conv2d_pool_windows() {
    VariantSpec<Conv2dPoolShape> v;
    v.name = kGpuConvPool;
    v.sources = {"schedules/gpu/conv2d_pool.h", "schedules/gpu/conv2d_pool_space.h", "schedules/gpu/limits.h"};
    v.knobs = {{"channels", 1, 32, "output channels per thread"},
               {"threads_x", 1, 1024, "threads of a block along the pooled x"},
               {"threads_y", 1, 1024, "threads of a block along the pooled y"},
               {"registers", 16, 255, "registers per thread the window's accumulators may plan for"}};
    v.violated = [](const Conv2dPoolShape &s, const TargetInfo &, const Knobs &k) -> std::string {
        if (k.get("channels") > s.conv.out_channels) return "more channels per thread than the layer has";
        if (s.pool_kernel_h * s.pool_kernel_w * k.get("channels") > k.get("registers") - 16)
            return "the window's accumulators exceed the registers less 16";
        return block_too_large(k.get("threads_x") * k.get("threads_y"));
    };
    v.complete = [](const Conv2dPoolShape &s, const TargetInfo &t, Knobs &k) {
        if (!k.has("registers")) k.set("registers", register_budget(t));
        const int taps = s.pool_kernel_h * s.pool_kernel_w;
        if (!k.has("channels"))
            k.set("channels", std::clamp((k.get("registers") - 32) / taps, 1, std::min(4, s.conv.out_channels)));
        if (!k.has("threads_x")) k.set("threads_x", std::min(32, s.pool_out_w));
        if (!k.has("threads_y")) k.set("threads_y", std::clamp(128 / k.get("threads_x"), 1, s.pool_out_h));
    };
    return v;
}

}  // namespace cortado::schedules::gpu
