// A convolution (generators/conv2d.h, with its bias and activations) and the MAX pooling of its
// output, as one algorithm (ops/conv2d_pool.h). The pooling takes the maximum down each column
// of the window, then across the columns, exactly, keeping a NaN as pooling does. Its taps
// either clamp to the convolution's output, which repeats a cell the window already holds
// (every window holds one: ops::fusable_max_pooling), so a schedule that computes rows of the
// convolution reads only those; or, `masked`, read the window as it lies and drop taps outside
// it, so that each window's convolution outputs have a constant extent that a GPU thread keeps in
// registers (the outputs past the edges are computed and not used).
// Buffers: input (x, y, c, n), weights (kx, ky, ci within group, co) in Caffe's order, bias (co),
// output (x, y, co, n) of the pooled size.
#pragma once

#include <limits>

#include "Halide.h"
#include "generators/conv2d.h"
#include "generators/non_finite.h"
#include "ops/conv2d_pool.h"

namespace cortado {

using ops::Conv2dPoolShape;

struct Conv2dPool {
    Conv2d conv;  // conv.output: the convolution with its epilogue, which the pooling reads
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::Func column_max{"column_max"};  // the maximum down each column of a window
    Halide::Func output{"conv2d_pool"};

    Conv2dPool(Halide::Func input, Halide::Func weights, Halide::Func bias, const Conv2dPoolShape &s,
               const ops::Epilogue &epilogue, bool masked)
        : conv(input, weights, bias, s.conv, epilogue, Halide::Func(), masked) {
        using namespace Halide;
        const int w = s.conv.out_w, h = s.conv.out_h;
        const Expr x0 = x * s.pool_stride_w - s.pool_pad_w, y0 = y * s.pool_stride_h - s.pool_pad_h;
        const Expr lowest = Expr(-std::numeric_limits<float>::infinity());
        // likely() lets Halide split off the edge iterations, so the steady state loads plainly.
        const auto tap = [&](Func f, Expr xi, Expr yi) -> Expr {
            if (masked) return select(xi >= 0 && xi < w && yi >= 0 && yi < h, f(xi, yi, c, n), lowest);
            return f(clamp(likely(xi), 0, w - 1), clamp(likely(yi), 0, h - 1), c, n);
        };
        Expr column = tap(conv.output, x, y0);
        for (int i = 1; i < s.pool_kernel_h; i++) column = max_keeping_nan(tap(conv.output, x, y0 + i), column);
        column_max(x, y, c, n) = column;
        // The columns are already clamped or masked along y; along x the taps do it.
        const auto column_at = [&](Expr xi) -> Expr {
            if (masked) return select(xi >= 0 && xi < w, column_max(xi, y, c, n), lowest);
            return column_max(clamp(likely(xi), 0, w - 1), y, c, n);
        };
        Expr row = column_at(x0);
        for (int i = 1; i < s.pool_kernel_w; i++) row = max_keeping_nan(column_at(x0 + i), row);
        output(x, y, c, n) = row;
    }
};

}  // namespace cortado
