// Winograd's minimal filtering F(m×m, r×r) (Lavin and Gray, "Fast Algorithms for Convolutional
// Neural Networks") for F(2×2, 3×3), F(4×4, 3×3) and F(2×2, 5×5), Halide-free: the transform
// matrices, which layers it computes, and how the output is cut into tiles. Shared by the
// generator (input and output transforms), the runtime (the weight transform at create time) and
// the planner.
//
// Each m×m output tile of a channel comes from an α×α input patch d (α = m + r − 1):
//   Y = Aᵀ [ Σ_ci (G g Gᵀ) ⊙ (Bᵀ d B) ] A,
// so per tile the products over input channels become α² independent GEMMs of
// (tiles × in channels) · (in channels × out channels), one per position of the patch.
#pragma once

#include <string>

#include "ops/conv2d.h"
#include "ops/gemm.h"

namespace cortado::ops {

struct WinogradMatrices {
    int m, r, alpha;
    const double *bt;  // α × α, row-major: Bᵀ
    const double *g;   // α × r: G
    const double *at;  // m × α: Aᵀ
};

// Interpolation points 0, 1, -1 (and ∞) for F(2×2, 3×3); 0, ±1, ±2 (and ∞) for F(4×4, 3×3) and
// F(2×2, 5×5), which share Bᵀ (the input transform depends only on the points).
constexpr double kWinogradBt2[] = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
constexpr double kWinogradG2[] = {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
constexpr double kWinogradAt2[] = {1, 1, 1, 0, 0, 1, -1, -1};
constexpr double kWinogradBt4[] = {4, 0,  -5, 0, 1, 0, 0, -4, -4, 1,  1, 0, 0, 4, -4, -1, 1, 0,
                                   0, -2, -1, 2, 1, 0, 0, 2,  -1, -2, 1, 0, 0, 4, 0,  -5, 0, 1};
constexpr double kWinogradG4[] = {1.0 / 4,  0,         0,        -1.0 / 6, -1.0 / 6, -1.0 / 6,
                                  -1.0 / 6, 1.0 / 6,   -1.0 / 6, 1.0 / 24, 1.0 / 12, 1.0 / 6,
                                  1.0 / 24, -1.0 / 12, 1.0 / 6,  0,        0,        1};
constexpr double kWinogradAt4[] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0, 0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};

constexpr double kWinogradG2K5[] = {1.0 / 4,  0,        0,        0,       0,        -1.0 / 6,  -1.0 / 6, -1.0 / 6,
                                    -1.0 / 6, -1.0 / 6, -1.0 / 6, 1.0 / 6, -1.0 / 6, 1.0 / 6,   -1.0 / 6, 1.0 / 24,
                                    1.0 / 12, 1.0 / 6,  1.0 / 3,  2.0 / 3, 1.0 / 24, -1.0 / 12, 1.0 / 6,  -1.0 / 3,
                                    2.0 / 3,  0,        0,        0,       0,        1};
constexpr double kWinogradAt2K5[] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 1};

// The matrices of F(m×m, r×r); for a pair without them (a shape the variants leave out), only
// m, r and α, with null matrices.
inline WinogradMatrices winograd_matrices(int m, int r) {
    if (m == 2 && r == 3) return {2, 3, 4, kWinogradBt2, kWinogradG2, kWinogradAt2};
    if (m == 4 && r == 3) return {4, 3, 6, kWinogradBt4, kWinogradG4, kWinogradAt4};
    if (m == 2 && r == 5) return {2, 5, 6, kWinogradBt4, kWinogradG2K5, kWinogradAt2K5};
    return {m, r, m + r - 1, nullptr, nullptr, nullptr};
}

// Winograd computes r×r kernels at stride 1, undilated.
inline std::string winograd_unsupported(const Conv2dShape &s, int r) {
    if (s.kernel_h == r && s.kernel_w == r && s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 &&
        s.dilation_w == 1)
        return "";
    const std::string k = std::to_string(r);
    return "not a " + k + "x" + k + " kernel at stride 1, undilated";
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
// channels × its output channels (α from the layer's kernel).
inline GemmDims winograd_gemm_dims(const Conv2dShape &s, int m) {
    const int alpha = m + s.kernel_h - 1;
    return {winograd_tiles(s, m).count, s.out_channels / s.group, s.in_channels / s.group, alpha * alpha * s.group};
}

}  // namespace cortado::ops
