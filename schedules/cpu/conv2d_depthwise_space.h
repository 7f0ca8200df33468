// The depthwise convolution of the CPU families (Halide-free): its knobs and default rule
// (schedule: conv2d_depthwise.h).
#pragma once

#include <algorithm>
#include <string>

#include "ops/depthwise.h"
#include "schedules/space.h"

namespace cortado::schedules::cpu {

inline constexpr const char *kDepthwise = "cpu_depthwise";

// Parallel tasks a layer is cut into at least: enough for two cores to finish together when one
// is slowed down.
inline constexpr int kDepthwiseMinTasks = 16;

// Outputs a task of whole small planes writes at least (64 KiB): far more work than the lock.
inline constexpr int kDepthwiseTaskOutputs = 16384;

inline VariantSpec<Conv2dShape> conv2d_depthwise() {
    VariantSpec<Conv2dShape> v;
    v.name = kDepthwise;
    v.sources = {"schedules/cpu/conv2d_depthwise.h", "schedules/cpu/conv2d_depthwise_space.h"};
    v.knobs = {{"vectors_x", 1, 8, "vectors of output x per register tile"},
               {"rows", 1, 8, "output rows per register tile"},
               {"task_rows", 1, 1 << 16, "output rows per strip of a channel plane"},
               {"task_planes", 1, 1 << 20, "channels per parallel task, when a task is whole planes"}};
    v.unsupported = [](const Conv2dShape &s) {
        return ops::is_depthwise(s) ? "" : "not a depthwise layer (one input channel per group)";
    };
    v.complete = [](const Conv2dShape &s, const TargetInfo &, Knobs &k) {
        if (!k.has("vectors_x")) k.set("vectors_x", 2);
        if (!k.has("rows")) k.set("rows", 2);
        // Whole planes, unless there are too few of them to keep both cores busy.
        const int planes = s.out_channels * s.batch;
        const int strips = std::max(1, (kDepthwiseMinTasks + planes - 1) / planes);
        if (!k.has("task_rows")) k.set("task_rows", std::max(1, (s.out_h + strips - 1) / strips));
        // Small planes are grouped until a task writes about kDepthwiseTaskOutputs values, as
        // long as there stay kDepthwiseMinTasks tasks.
        const int grouped = std::min({std::max(1, kDepthwiseTaskOutputs / (s.out_h * s.out_w)),
                                      std::max(1, planes / kDepthwiseMinTasks), s.out_channels});
        if (!k.has("task_planes")) k.set("task_planes", strips > 1 ? 1 : grouped);
    };
    v.violated = [](const Conv2dShape &, const TargetInfo &, const Knobs &k) -> std::string {
        if (k.get("vectors_x") * k.get("rows") > 12)
            return "vectors_x x rows = " + std::to_string(k.get("vectors_x") * k.get("rows")) +
                   " accumulators, more than the 12 that leave registers for the loads";
        return "";
    };
    return v;
}

}  // namespace cortado::schedules::cpu
