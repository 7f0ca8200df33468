// The channel-lanes direct convolution of the GPU family (Halide-free): its knobs, limits and
// default rule (algorithm: generators/conv2d_channel_lanes.h, schedule: conv2d_channel_lanes.h).
// A thread owns `channels` output channels, every (panel / channels)-th of a panel, by `rows`
// consecutive output pixels of an image (across rows); the `panel / channels` threads of a panel
// sit side by side in a warp, so at each reduction step their loads of one lane's weights are one
// contiguous run and they all read the same input value (one broadcast load). A block is one
// panel by `threads_q` pixel tiles.
#pragma once

#include <algorithm>
#include <string>

#include "ops/conv2d.h"
#include "ops/gemm.h"
#include "schedules/gpu/conv2d_tile_rule.h"
#include "schedules/gpu/fitting.h"
#include "schedules/gpu/limits.h"
#include "schedules/space.h"

namespace cortado::schedules::gpu {

using ops::Conv2dShape;

inline constexpr const char *kGpuChannelLanes = "gpu_direct_channel_lanes";

// Threads of a block the default rule aims for: four warps share each weight load through L1.
inline constexpr int kChannelLanesBlockThreads = 128;

// The widest panel of `channels` per thread and at most a warp of threads that fits the groups,
// wasting the fewest channels (the last panel is zero-padded); 0 if none fits (one channel per
// thread always fits).
inline int channel_panel(const Conv2dShape &s, int channels) {
    int best = 0;
    double best_used = 0;
    for (int threads = 1; threads <= 32; threads++) {
        const int panel = threads * channels;
        if (!ops::panel_fits_groups(s, panel)) continue;
        const double used = double(s.out_channels) / (ops::panel_count(s.out_channels, panel) * panel);
        if (used >= best_used) best = panel, best_used = used;
    }
    return best;
}

// Where the default rule takes this variant over the register tile (gpu_register_tile), as
// measured on the H100's 78 spatial suite cases (docs/PERFORMANCE.md, GPU convolution variants):
// - deep reductions on maps at most 13 wide from batch 5 (the register tile leaves lanes idle
//   along x there): 384>1024 3x3 on 6x6 at b20 ran 0.50 ms against 0.81, 192>384 on 7x7 0.12
//   against 0.19; at batch 1 the extra kernels (shares, copy) cost more than they save;
// - first layers with an 11x11 kernel at stride 4 up to batch 5 (AlexNet conv1 at b1: 0.058
//   against 0.096 ms); at b20 the register tile is faster.
inline constexpr int kGpuChannelLanesMinDepth = 1440, kGpuChannelLanesMaxWidth = 13;

inline bool channel_lanes_by_default(const Conv2dShape &s) {
    const bool deep_and_narrow =
        s.batch >= 5 && ops::reduction_depth(s) >= kGpuChannelLanesMinDepth && s.out_w <= kGpuChannelLanesMaxWidth;
    const bool large_strided_kernel = s.kernel_w >= 11 && s.stride_w >= 4 && s.batch <= 5;
    return deep_and_narrow || large_strided_kernel;
}

// Accumulators per thread the tile may hold: a thread also keeps a weight per channel, the
// addresses of its pixels and the loop state (about 40 registers with 8 pixels).
inline int channel_lanes_accumulators(int registers) { return std::max(4, registers - 40); }

inline VariantSpec<Conv2dShape> conv2d_channel_lanes() {
    VariantSpec<Conv2dShape> v;
    v.name = kGpuChannelLanes;
    v.form = ops::Form::channel_lanes();
    v.sources = {"schedules/gpu/conv2d_channel_lanes.h", "schedules/gpu/conv2d_channel_lanes_space.h"};
    v.weights = ops::WeightPacking::ColumnPanels;
    v.knobs = {{"channels", 1, 16, "output channels per thread, every (panel / channels)-th of a panel"},
               {"panel", 1, 512, "output channels per block (packed weight panel); a multiple of channels"},
               {"rows", 1, 32, "output pixels per thread (consecutive in the image, across rows)"},
               {"threads_q", 1, 1024, "pixel tiles per block (threads along the pixels)"},
               {"split_k", 1, 64, "shares of the input channels, summed by a second kernel"}};
    for (const KnobSpec &k : conv2d_launch_knobs()) v.knobs.push_back(k);
    v.complete = [](const Conv2dShape &s, const TargetInfo &t, Knobs &k) {
        if (!k.has("registers")) k.set("registers", register_budget(t));
        const int pixels = s.out_w * s.out_h, accumulators = channel_lanes_accumulators(k.get("registers"));
        // Rows as the schedule runs them: at most one image's pixels. Kernels of 7x7 and more
        // take 4 (twice the threads): AlexNet conv1 at b1 ran 0.058 ms with 4, 0.096 with 8.
        const bool rows_pinned = k.has("rows");
        k.set("rows", fitting(rows_pinned ? k.get("rows") : s.kernel_h * s.kernel_w >= 49 ? 4 : 8, pixels));
        if (!k.has("channels")) {
            // 4 channels, fewer where the registers or the groups want it: on the H100, 8 ran
            // slower than 4 on 70 of the 78 spatial suite cases (docs/PERFORMANCE.md).
            int channels = 4;
            while (channels > 1 && (channels * k.get("rows") > accumulators || channel_panel(s, channels) == 0))
                channels /= 2;
            k.set("channels", channels);
        }
        // A budget too small for the rows: fewer rows, unless they were pinned (then refused).
        if (!rows_pinned) k.set("rows", std::max(1, std::min(k.get("rows"), accumulators / k.get("channels"))));
        if (!k.has("panel")) k.set("panel", std::max(k.get("channels"), channel_panel(s, k.get("channels"))));
        const int threads_c = std::max(1, k.get("panel") / k.get("channels"));
        const int tiles = (pixels + k.get("rows") - 1) / k.get("rows");
        if (!k.has("threads_q")) k.set("threads_q", fitting(kChannelLanesBlockThreads / threads_c, tiles));
        if (!k.has("target_threads")) k.set("target_threads", Conv2dKnobs{}.target_threads);
        if (!k.has("split_k")) {
            const long threads = long(s.batch) * tiles * ops::panel_count(s.out_channels, k.get("panel")) * threads_c;
            k.set("split_k", split_for(s, threads, k.get("target_threads")));
        }
    };
    v.violated = [](const Conv2dShape &s, const TargetInfo &, const Knobs &k) -> std::string {
        const int channels = k.get("channels"), panel = k.get("panel"), registers = k.get("registers");
        if (panel % channels != 0)
            return "panel = " + std::to_string(panel) + " is not a multiple of channels = " + std::to_string(channels);
        if (!ops::panel_fits_groups(s, panel))
            return "panel = " + std::to_string(panel) + " does not divide the " +
                   std::to_string(s.out_channels / s.group) + " output channels per group";
        if (channels * k.get("rows") > channel_lanes_accumulators(registers))
            return "a tile of " + std::to_string(channels * k.get("rows")) + " accumulators is more than the " +
                   std::to_string(channel_lanes_accumulators(registers)) + " that " + std::to_string(registers) +
                   " registers leave";
        return block_too_large(panel / channels * k.get("threads_q"));
    };
    return v;
}

}  // namespace cortado::schedules::gpu
