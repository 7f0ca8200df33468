// The Winograd variants of the GPU family (Halide-free): gpu_winograd_f2, gpu_winograd_f4 and
// gpu_winograd_f2_5x5, F(2×2, 3×3), F(4×4, 3×3) and F(2×2, 5×5) (generators/conv2d_winograd.h,
// schedule: conv2d_winograd.h, which takes any α).
// Their knobs are the GPU GEMM's, for the α² products of tiles by input channels by output
// channels, the weights transformed at create time into panels as wide as a block's columns.
// Like the CPU family's, they trade exactness for arithmetic: each carries the relative L2 error
// measured on the suites as its tolerance, and an Inf or NaN in the input spreads over every
// output of the tiles whose patches hold it. F(2×2) is as exact as the direct variants (its
// tolerance is the 1e-5 every default is held to) and the default where it wins; F(4×4), faster
// still but less exact, is left to tuned plans and forced choices, as is F(2×2, 5×5) (36 products
// for 4 outputs where the direct form takes 100).
#pragma once

#include "ops/winograd.h"
#include "schedules/gpu/gemm_space.h"

namespace cortado::schedules::gpu {

// Tolerances (docs/PERFORMANCE.md, GPU Winograd): the worst relative L2 error over the stride-1
// 3×3 convolutions of the H100 conv suite, with room for other data.
// F(2×2, 5×5) takes the CPU family's tolerance for it (its transforms are the same matrices).
inline constexpr float kGpuWinogradF2Tolerance = 1e-5f, kGpuWinogradF4Tolerance = 3e-5f,
                       kGpuWinogradF2K5Tolerance = 3e-5f;

// From how many input channels per group F(2×2) is the default for the layers it computes: on the H100,
// the 42 stride-1 3×3 cases of the suite from 96 channels ran 1.1–2.9× faster than the direct
// default at batch 5 and 20; with 64 channels on a 56×56 map, the transforms' memory traffic
// made it 1.1–1.3× slower (docs/PERFORMANCE.md, GPU Winograd).
inline constexpr int kGpuWinogradMinInputChannels = 96;

inline bool winograd_by_default(const Conv2dShape &s) {
    return ops::winograd_unsupported(s, 3).empty() && s.in_channels / s.group >= kGpuWinogradMinInputChannels;
}

// F(m×m, r×r) for (m, r) = (2, 3), (4, 3) or (2, 5).
inline VariantSpec<Conv2dShape> conv2d_winograd(int m, int r = 3) {
    const char *name = r == 5 ? "gpu_winograd_f2_5x5" : m == 4 ? "gpu_winograd_f4" : "gpu_winograd_f2";
    auto v = gemm_variant<Conv2dShape>(name, false, ops::WeightPacking::WinogradPanels, false,
                                       [m](const Conv2dShape &s) { return ops::winograd_gemm_dims(s, m); });
    v.form = ops::Form::winograd(m, r);
    v.sources = {"schedules/gpu/conv2d_winograd.h", "schedules/gpu/conv2d_winograd_space.h"};
    v.unsupported = [r](const Conv2dShape &s) { return ops::winograd_unsupported(s, r); };
    // The default panel is a block's columns; in grouped layers, the widest that a group holds
    // whole, at most that, and whole thread tiles of `cols` where one fits: any panel computes
    // the same (columns are numbered across the groups), but a block's weight loads stay one
    // contiguous run only within a panel.
    const auto complete_gemm = v.complete;
    v.complete = [complete_gemm](const Conv2dShape &s, const TargetInfo &t, Knobs &k) {
        const bool panel_given = k.has("panel");
        complete_gemm(s, t, k);
        if (panel_given || ops::panel_fits_groups(s, k.get("panel"))) return;
        const int widest = k.get("panel"), cols = k.get("cols");
        const auto widest_fitting = [&](int multiple_of) {
            for (int p = widest; p >= 1; p--)
                if (ops::panel_fits_groups(s, p) && p % multiple_of == 0) return p;
            return 0;
        };
        const int whole_tiles = widest_fitting(cols);
        k.set("panel", whole_tiles ? whole_tiles : widest_fitting(1));
    };
    v.tolerance = r == 5 ? kGpuWinogradF2K5Tolerance : m == 4 ? kGpuWinogradF4Tolerance : kGpuWinogradF2Tolerance;
    return v;
}

}  // namespace cortado::schedules::gpu
