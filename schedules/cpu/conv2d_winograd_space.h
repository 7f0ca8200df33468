// The Winograd variants of the CPU families (Halide-free): cpu_winograd_f2 and cpu_winograd_f4,
// F(2×2, 3×3) and F(4×4, 3×3) (generators/conv2d_winograd.h). Their knobs are the GEMM's, for
// the α² products of tiles by input channels by output channels. They trade exactness for
// arithmetic: each carries the relative L2 error measured on the suites as its tolerance, and an
// Inf or NaN in the input spreads over every output of the tiles whose patches hold it.
#pragma once

#include "generators/ops/winograd.h"
#include "schedules/cpu/gemm_space.h"

namespace cortado::schedules::cpu {

// Tolerances (docs/PERFORMANCE.md, Winograd): the worst relative L2 error over the stride-1 3×3
// convolutions of the bench suite, with room for other data.
inline constexpr float kWinogradF2Tolerance = 1e-5f, kWinogradF4Tolerance = 3e-5f;

inline VariantSpec<Conv2dShape> conv2d_winograd(int m, RegisterCount registers) {
    auto v = gemm_variant<Conv2dShape>(
        m == 4 ? "cpu_winograd_f4" : "cpu_winograd_f2", ops::WeightPacking::WinogradPanels, false,
        [m](const Conv2dShape &s) { return ops::winograd_gemm_dims(s, m); }, registers);
    v.unsupported = ops::winograd_unsupported;
    v.tolerance = m == 4 ? kWinogradF4Tolerance : kWinogradF2Tolerance;
    return v;
}

}  // namespace cortado::schedules::cpu
