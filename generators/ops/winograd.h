// Winograd's minimal filtering F(m×m, 3×3) (Lavin and Gray, "Fast Algorithms for Convolutional
// Neural Networks"), Halide-free: the transform matrices, which layers it computes, and how the
// output is cut into tiles. Shared by the generator (input and output transforms), the runtime
// (the weight transform at create time) and the planner.
//
// Each m×m output tile of a channel comes from an α×α input patch d (α = m + 2):
//   Y = Aᵀ [ Σ_ci (G g Gᵀ) ⊙ (Bᵀ d B) ] A,
// so per tile the products over input channels become α² independent GEMMs of
// (tiles × in channels) · (in channels × out channels), one per position of the patch.
#pragma once

#include <string>

#include "generators/ops/conv2d.h"
#include "generators/ops/gemm.h"

namespace cortado::ops {

struct WinogradMatrices {
    int m, alpha;
    const double *bt;  // α × α, row-major: Bᵀ
    const double *g;   // α × 3: G
    const double *at;  // m × α: Aᵀ
};

// Interpolation points 0, 1, -1 (and ∞) for F(2×2, 3×3); 0, ±1, ±2 (and ∞) for F(4×4, 3×3).
constexpr double kWinogradBt2[] = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
constexpr double kWinogradG2[] = {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
constexpr double kWinogradAt2[] = {1, 1, 1, 0, 0, 1, -1, -1};
constexpr double kWinogradBt4[] = {4, 0,  -5, 0, 1, 0, 0, -4, -4, 1,  1, 0, 0, 4, -4, -1, 1, 0,
                                   0, -2, -1, 2, 1, 0, 0, 2,  -1, -2, 1, 0, 0, 4, 0,  -5, 0, 1};
constexpr double kWinogradG4[] = {1.0 / 4,  0,         0,        -1.0 / 6, -1.0 / 6, -1.0 / 6,
                                  -1.0 / 6, 1.0 / 6,   -1.0 / 6, 1.0 / 24, 1.0 / 12, 1.0 / 6,
                                  1.0 / 24, -1.0 / 12, 1.0 / 6,  0,        0,        1};
constexpr double kWinogradAt4[] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0, 0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};

inline WinogradMatrices winograd_matrices(int m) {
    if (m == 4) return {4, 6, kWinogradBt4, kWinogradG4, kWinogradAt4};
    return {2, 4, kWinogradBt2, kWinogradG2, kWinogradAt2};
}

// The output tile m of a Winograd variant, from its name (<family>_winograd_f2, _f4); 0 for
// any other variant.
inline int winograd_tile(const std::string &variant) {
    return variant_has_suffix(variant, "_winograd_f2") ? 2 : variant_has_suffix(variant, "_winograd_f4") ? 4 : 0;
}

// Winograd computes 3×3 kernels at stride 1, undilated.
inline std::string winograd_unsupported(const Conv2dShape &s) {
    if (s.kernel_h == 3 && s.kernel_w == 3 && s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 &&
        s.dilation_w == 1)
        return "";
    return "not a 3x3 kernel at stride 1, undilated";
}

// Output tiles per row, per column and in all (every image).
struct WinogradTiles {
    int x, y, count;
};
inline WinogradTiles winograd_tiles(const Conv2dShape &s, int m) {
    const int x = (s.out_w + m - 1) / m, y = (s.out_h + m - 1) / m;
    return {x, y, x * y * s.batch};
}

// The products: per position of the α×α transform and per group, tiles × the group's input
// channels × its output channels.
inline GemmDims winograd_gemm_dims(const Conv2dShape &s, int m) {
    const int alpha = winograd_matrices(m).alpha;
    return {winograd_tiles(s, m).count, s.out_channels / s.group, s.in_channels / s.group, alpha * alpha * s.group};
}

}  // namespace cortado::ops
