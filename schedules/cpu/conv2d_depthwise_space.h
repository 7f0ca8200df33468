// The depthwise convolutions of the CPU families (Halide-free): their knobs and default rules.
// cpu_depthwise (schedule: conv2d_depthwise.h) puts output x in the lanes and reads and writes
// NCHW; cpu_depthwise_channel_lanes (the channel-lanes algorithm, generators/
// conv2d_channel_lanes.h, and its schedule) puts channels in the lanes and reads and writes
// channel blocks, so that narrow maps fill whole vectors and a network's blocked layers stay
// blocked through its depthwise ones.
#pragma once

#include <algorithm>
#include <string>

#include "ops/depthwise.h"
#include "schedules/cpu/conv2d_channel_lanes_space.h"
#include "schedules/space.h"

namespace cortado::schedules::cpu {

inline constexpr const char *kDepthwise = "cpu_depthwise";
inline constexpr const char *kDepthwiseChannelLanes = "cpu_depthwise_channel_lanes";

// Outputs a task of whole small planes writes at least (64 KiB): far more work than the lock.
inline constexpr int kDepthwiseTaskOutputs = 16384;

inline VariantSpec<Conv2dShape> conv2d_depthwise() {
    VariantSpec<Conv2dShape> v;
    v.name = kDepthwise;
    v.sources = {"schedules/cpu/conv2d_depthwise.h", "schedules/cpu/conv2d_depthwise_space.h"};
    v.knobs = {{"vectors_x", 1, 8, "vectors of output x per register tile"},
               {"rows", 1, 8, "output rows per register tile"},
               {"task_rows", 1, 1 << 16, "output rows per strip of a channel plane", true},
               {"task_planes", 1, 1 << 20, "channels per parallel task, when a task is whole planes", true}};
    v.unsupported = [](const Conv2dShape &s) {
        return ops::is_depthwise(s) ? "" : "not a depthwise layer (one input channel per group)";
    };
    v.complete = [](const Conv2dShape &s, const TargetInfo &t, Knobs &k) {
        if (!k.has("vectors_x")) k.set("vectors_x", 2);
        if (!k.has("rows")) k.set("rows", 2);
        // Whole planes, unless there are too few of them to keep the cores busy.
        const int least = least_direct_tasks(t.cores);
        const int planes = s.out_channels * s.batch;
        const int strips = std::max(1, (least + planes - 1) / planes);
        if (!k.has("task_rows")) k.set("task_rows", std::max(1, (s.out_h + strips - 1) / strips));
        // Small planes are grouped until a task writes about kDepthwiseTaskOutputs values, as
        // long as there stay `least` tasks.
        const int grouped = std::min(
            {std::max(1, kDepthwiseTaskOutputs / (s.out_h * s.out_w)), std::max(1, planes / least), s.out_channels});
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

inline VariantSpec<Conv2dShape> conv2d_depthwise_channel_lanes(RegisterCount registers) {
    VariantSpec<Conv2dShape> v;
    v.name = kDepthwiseChannelLanes;
    v.form = ops::Form::channel_lanes();
    v.channel_blocks = true;
    v.sources = {"schedules/cpu/conv2d_channel_lanes.h", "schedules/cpu/conv2d_depthwise_space.h"};
    v.weights = ops::WeightPacking::ColumnPanels;
    v.knobs = channel_lanes_knobs();
    v.unsupported = [](const Conv2dShape &s) {
        return ops::reads_own_channel(s) ? "" : "not a depthwise layer with one output channel per input channel";
    };
    v.complete = [](const Conv2dShape &s, const TargetInfo &t, Knobs &k) {
        const int lanes = t.float_lanes();
        // One vector of channels: a tap loads one weight vector and one input vector per pixel,
        // so wider tiles save no loads.
        if (!k.has("cols")) k.set("cols", lanes);
        const int pixels = s.out_w * s.out_h;
        // Few pixels, though registers would hold 12: each pixel reads through its own address
        // (a tile may cross rows), and past four the compiler recomputed those addresses in every
        // tap, as vectors of 64-bit integers. Four where they divide a row; three on the 14- and
        // 7-wide maps, where four ran slower than three (docs/PERFORMANCE.md, "A cheaper SiLU and
        // depthwise tiles of four pixels").
        if (!k.has("rows")) k.set("rows", std::min(pixels, s.out_w % 4 == 0 ? 4 : 3));
        // Enough tasks for the cores, each staging at most a quarter of L2 (within L2 with the
        // output it writes; 256 KiB of a 1 MiB L2: a strip of rows of a map as wide as
        // MobileNet's first, 112).
        const int tiles = (pixels + k.get("rows") - 1) / k.get("rows");
        const int panels = ops::panel_count(s.out_channels, k.get("cols"));
        const int staged_per_tile = k.get("rows") * k.get("cols") * s.stride_h * s.stride_w;
        const int largest = int(std::max<long long>(1, t.model().quarter_l2_floats() / staged_per_tile));
        if (!k.has("task_tiles"))
            k.set("task_tiles", std::min(channel_lanes_task_tiles(tiles, panels, s.batch, t.cores), largest));
        complete_pixel_stores(k);
    };
    v.violated = [registers](const Conv2dShape &, const TargetInfo &t, const Knobs &k) -> std::string {
        return register_tile_violation(t.float_lanes(), registers(t), k.get("rows"), k.get("cols"));
    };
    return v;
}

}  // namespace cortado::schedules::cpu
