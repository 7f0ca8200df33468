// The Winograd variants of the CPU families (Halide-free): cpu_winograd_f2 and cpu_winograd_f4,
// F(2×2, 3×3) and F(4×4, 3×3), and cpu_winograd_f2_5x5, F(2×2, 5×5) (generators/conv2d_winograd.h).
// Their knobs are the GEMM's, for the α² products of tiles by input channels by output channels.
// They trade exactness for arithmetic: each carries the relative L2 error measured on the suites
// as its tolerance, and an Inf or NaN in the input spreads over outputs of the tiles whose
// patches hold it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ops/winograd.h"
#include "schedules/cpu/gemm_space.h"

namespace cortado::schedules::cpu {

// Tolerances (docs/PERFORMANCE.md, Winograd): the worst relative L2 error over the stride-1
// convolutions of the bench suite that the variant computes, with room for other data.
inline constexpr float kWinogradF2Tolerance = 1e-5f, kWinogradF4Tolerance = 3e-5f, kWinogradF2K5Tolerance = 3e-5f;

// The input transform is stored before the products read it; beyond the caches it streams from
// memory. Deep layers (kWinogradDeepInputs by kWinogradDeepOutputs) pay for that up to
// kWinogradMaxTransformBytes, the others up to kWinogradSmallTransformBytes; both limits sit on
// the 1 MiB L2 per core and 32 MiB L3 of the machine they were measured on. Beyond its limit,
// the batch is transformed a chunk of images at a time (the `batch_chunk` knob).
inline constexpr int kWinogradDeepInputs = 32, kWinogradDeepOutputs = 64;
inline constexpr int64_t kWinogradSmallTransformBytes = int64_t(8) << 20, kWinogradMaxTransformBytes = int64_t(40)
                                                                                                       << 20;

inline bool winograd_deep(const Conv2dShape &s) {
    return s.in_channels / s.group >= kWinogradDeepInputs && s.out_channels / s.group >= kWinogradDeepOutputs;
}
inline int64_t winograd_transform_limit(const Conv2dShape &s) {
    return winograd_deep(s) ? kWinogradMaxTransformBytes : kWinogradSmallTransformBytes;
}
// One image's tiles by the α² positions of F(m×m, r×r): the products' rows per image and channel.
inline int winograd_positions_per_image(const Conv2dShape &s, int m) {
    const int alpha = m + s.kernel_h - 1;
    return ops::winograd_tiles(s, m).count / std::max(1, s.batch) * alpha * alpha;
}
// One image's input transform: its positions by input channels.
inline int64_t winograd_transform_bytes_per_image(const Conv2dShape &s, int m) {
    return int64_t(winograd_positions_per_image(s, m)) * s.in_channels * 4;
}
// F(m×m, r×r)'s transformed weights: per position and group, inputs by outputs.
inline int64_t winograd_weight_bytes(const Conv2dShape &s, int m) {
    const ops::GemmDims d = ops::winograd_gemm_dims(s, m);
    return int64_t(d.batch) * d.depth * d.cols * 4;
}
// The images per stored transform within the limit, at least one; 0 where the whole batch fits.
// A DenseNet 128 > 32 3x3 layer on 56x56 at batch 20 (a 72 MB transform) ran 1.2x faster than
// direct with the whole batch, 1.6x one image at a time (docs/PERFORMANCE.md, "Blocked sums
// unrolled, tasks sized by L2, and Winograd a chunk of images at a time").
inline int winograd_batch_chunk(const Conv2dShape &s, int m) {
    const int64_t fits = winograd_transform_limit(s) / std::max<int64_t>(1, winograd_transform_bytes_per_image(s, m));
    return fits >= s.batch ? 0 : int(std::max<int64_t>(1, fits));
}

// F(m×m, r×r) for (m, r) = (2, 3), (4, 3) or (2, 5).
inline VariantSpec<Conv2dShape> conv2d_winograd(int m, int r, RegisterCount registers) {
    const char *name = r == 5 ? "cpu_winograd_f2_5x5" : m == 4 ? "cpu_winograd_f4" : "cpu_winograd_f2";
    auto v = gemm_variant<Conv2dShape>(
        name, ops::WeightPacking::WinogradPanels, false,
        [m](const Conv2dShape &s) { return ops::winograd_gemm_dims(s, m); }, registers);
    v.form = ops::Form::winograd(m, r);
    // With the products channel-innermost, the input transform runs along a block's channels
    // and the output transform has them in the lanes.
    v.channel_blocks = true;
    v.sources = {"schedules/cpu/conv2d_winograd.h", "schedules/cpu/conv2d_winograd_space.h"};
    v.unsupported = [r](const Conv2dShape &s) { return ops::winograd_unsupported(s, r); };
    v.knobs.push_back({"channel_products", 0, 1,
                       "products stored channel-innermost and transformed per image and block of col_block "
                       "channels while in cache (else stored tile-innermost, all of them, then transformed)"});
    v.knobs.push_back({"batch_chunk", 0, 1 << 16,
                       "with channel_products 1: images whose input transform is stored at once, then their "
                       "products and outputs computed (0: the whole batch)"});
    const auto gemm_complete = v.complete;
    v.complete = [gemm_complete, m](const Conv2dShape &s, const TargetInfo &t, Knobs &k) {
        if (!k.has("channel_products")) k.set("channel_products", 1);
        if (!k.has("batch_chunk")) k.set("batch_chunk", k.get("channel_products") ? winograd_batch_chunk(s, m) : 0);
        // A block's products, an image's tiles by col_block channels by α² positions, in about
        // a quarter of L2.
        if (k.get("channel_products") && !k.has("col_block")) {
            Knobs gemm = k;
            gemm_complete(s, t, gemm);  // the register tile of the GEMM's rule
            const int cols = gemm.get("cols");
            const int out_per_group = s.out_channels / s.group;
            const int fits =
                int(t.model().quarter_l2_floats() / std::max(1, winograd_positions_per_image(s, m)) / cols * cols);
            int col_block = std::clamp(fits, cols, (out_per_group + cols - 1) / cols * cols);
            // Tasks (images by groups by blocks) that keep the cores busy: smaller blocks where
            // there are too few or the last round is short.
            const long long images = k.get("batch_chunk") > 0 ? k.get("batch_chunk") : s.batch;
            const auto tasks = [&] { return images * s.group * ((out_per_group + col_block - 1) / col_block); };
            while (!keeps_cores_busy(tasks(), t.cores) && col_block > cols)
                col_block = std::max(cols, (col_block / 2 + cols - 1) / cols * cols);
            k.set("col_block", col_block);
        }
        gemm_complete(s, t, k);
    };
    v.tolerance = r == 5 ? kWinogradF2K5Tolerance : m == 4 ? kWinogradF4Tolerance : kWinogradF2Tolerance;
    return v;
}

}  // namespace cortado::schedules::cpu
