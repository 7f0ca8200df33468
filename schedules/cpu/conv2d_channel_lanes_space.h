// The channel-lanes direct convolution of the CPU families (Halide-free): its knobs, limits and
// default rule (algorithm: generators/conv2d_channel_lanes.h, schedule: conv2d_channel_lanes.h).
// The register tile has the GEMM's names: `cols` output channels (whole vectors, the panel the
// weights are packed in) by `rows` output pixels.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "ops/depthwise.h"
#include "schedules/cpu/gemm_space.h"

namespace cortado::schedules::cpu {

inline constexpr const char *kChannelLanes = "cpu_direct_channel_lanes";

// Whether the target's cores issue two 512-bit FMAs a cycle, as Halide names it in the target:
// Sapphire Rapids and later Xeons (avx512_sapphirerapids).
inline bool issues_two_512_bit_fmas(const TargetInfo &t) { return t.has_feature("avx512_sapphirerapids"); }

// Accumulators in a full register tile: the GEMM's, but 27 (3 vectors by 9 pixels, in 31 of 32
// registers) where two FMAs issue a cycle. At that rate the tile's loads, not its FMAs, bound
// it, and 3 x 9 loads 12 vectors per 27 FMAs where 4 x 6 loads 10 per 24: fewer weight vectors
// per FMA, the loads that come from L2 (docs/PERFORMANCE.md, "A tile for two FMA pipes").
inline int channel_lanes_accumulators(const TargetInfo &t, int registers) {
    return registers >= 32 && issues_two_512_bit_fmas(t) ? 27 : full_tile_accumulators(registers);
}

// Whether some whole number of vectors fits the groups (always, for one group).
inline bool channel_lanes_apply(const Conv2dShape &s, const TargetInfo &t) {
    return ops::panel_fits_groups(s, t.float_lanes());
}

// The register tile's knobs, shared by the variants on the channel-lanes algorithm.
inline std::vector<KnobSpec> channel_lanes_knobs() {
    return {{"rows", 1, 32, "output pixels per register tile (consecutive in the image, across rows)"},
            {"cols", 1, 256, "output channels per register tile, whole vectors"},
            {"task_tiles", 1, 1 << 20, "register tiles of pixels per parallel task", true},
            {"pixel_stores", 0, 1,
             "an NCHW output stored in vectors of a tile's pixels (1) or channel by channel (0); a blocked "
             "output is stored in whole vectors either way"}};
}

// Vectors of pixels by default: a tile's `rows` pixels of one channel are consecutive in an NCHW
// output, so one vector store per channel replaces `rows` scalar ones (docs/PERFORMANCE.md,
// "Pixel stores"). The shipped records, measured before the knob, say 0: their kernels stay.
inline void complete_pixel_stores(Knobs &k) {
    if (!k.has("pixel_stores")) k.set("pixel_stores", 1);
}

// Of the row counts from a full tile (`most` pixels) down to `least` (least_tile_rows), the one
// that computes the most useful pixels per accumulator (a short last tile recomputes pixels of
// the one before).
inline int most_useful_rows(int pixels, int most, int least) {
    int rows = most;
    const auto useful = [&](int r) { return double(pixels) / ((pixels + r - 1) / r * r) * r / most; };
    for (int r = most; r >= least; r--)
        if (useful(r) > useful(rows)) rows = r;
    return rows;
}

// Pixel tiles per parallel task: enough tasks (least_direct_tasks) over the panels and images.
inline int channel_lanes_task_tiles(int tiles, int panels, int batch, int cores) {
    const int chunks = std::max(1, (least_direct_tasks(cores) + panels * batch - 1) / (panels * batch));
    return std::max(1, (tiles + chunks - 1) / chunks);
}

inline VariantSpec<Conv2dShape> conv2d_channel_lanes(RegisterCount registers) {
    VariantSpec<Conv2dShape> v;
    v.name = kChannelLanes;
    // Its tiles hold whole blocks of output channels and read the input by broadcasts.
    v.form = ops::Form::channel_lanes();
    v.channel_blocks = true;
    v.sources = {"schedules/cpu/conv2d_channel_lanes.h", "schedules/cpu/conv2d_channel_lanes_space.h"};
    v.weights = ops::WeightPacking::ColumnPanels;
    v.knobs = channel_lanes_knobs();
    v.unsupported = [](const Conv2dShape &s) {
        return ops::reads_own_channel(s) ? "a depthwise layer: no vector of output channels fits a group" : "";
    };
    v.complete = [registers](const Conv2dShape &s, const TargetInfo &t, Knobs &k) {
        const int lanes = t.float_lanes(), regs = registers(t), accumulators = channel_lanes_accumulators(t, regs);
        // Of the widths that fit the groups, the one that wastes the fewest channels, weighted
        // by how full its tile is; on a tie the widest, which loads the fewest inputs per FMA.
        int best = 0;
        double best_score = 0;
        for (int vectors = 1; vectors <= widest_tile_vectors(regs); vectors++) {
            const int cols = vectors * lanes;
            if (!ops::panel_fits_groups(s, cols)) continue;
            const double used = double(s.out_channels) / ((s.out_channels + cols - 1) / cols * cols);
            const double score = used * vectors * register_tile_rows(vectors, regs, accumulators) / accumulators;
            if (score >= best_score) best = vectors, best_score = score;
        }
        if (!k.has("cols")) k.set("cols", std::max(best, 1) * lanes);
        const int pixels = s.out_w * s.out_h;
        const int most = std::min(pixels, register_tile_rows(k.get("cols") / lanes, regs, accumulators));
        if (!k.has("rows"))
            k.set("rows", most_useful_rows(pixels, most, least_tile_rows(k.get("cols") / lanes, most, t.model())));
        const int tiles = (pixels + k.get("rows") - 1) / k.get("rows");
        const int panels = ops::panel_count(s.out_channels, k.get("cols"));
        if (!k.has("task_tiles")) k.set("task_tiles", channel_lanes_task_tiles(tiles, panels, s.batch, t.cores));
        complete_pixel_stores(k);
    };
    v.violated = [registers](const Conv2dShape &s, const TargetInfo &t, const Knobs &k) -> std::string {
        const int cols = k.get("cols");
        const std::string tile = register_tile_violation(t.float_lanes(), registers(t), k.get("rows"), cols);
        if (!tile.empty()) return tile;
        if (!ops::panel_fits_groups(s, cols))
            return "cols = " + std::to_string(cols) + " does not divide the " +
                   std::to_string(s.out_channels / s.group) + " output channels per group";
        return "";
    };
    return v;
}

}  // namespace cortado::schedules::cpu
