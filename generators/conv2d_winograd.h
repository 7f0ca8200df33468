// Convolution by Winograd's F(m×m, 3×3) (generators/ops/winograd.h), with the batched products
// on the GEMM algorithm (generators/gemm.h):
// - `transformed(tx, ty, image, ci, pos)`: Bᵀ d B of each tile's α×α input patch d, position
//   `pos` = i·α + j of the α² that the transform gives;
// - `gemm`: per position, (tiles × in channels) · (in channels × out channels), the weights
//   transformed (G g Gᵀ) and packed at create time in column panels per position: packed(lane,
//   ci, panel, pos); C is stored as products(tile, out channel, pos);
// - `output(x, y, c, n)`: Aᵀ M A of each tile, plus the bias, then the activation.
// The transforms are written out term by term from the constant matrices, without the zero
// terms; a schedule that unrolls `pos` (and the tile's x and y) leaves no selection at run time.
#pragma once

#include <optional>
#include <vector>

#include "Halide.h"
#include "generators/conv2d.h"
#include "generators/gemm.h"
#include "generators/ops/winograd.h"

namespace cortado {

struct Conv2dWinograd {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::Var tx{"tx"}, ty{"ty"}, image{"image"}, ci{"ci"}, pos{"pos"};
    Halide::Func padded{"padded"};              // zero beyond every edge of the input
    Halide::Func transformed{"winograd_input"};  // (tx, ty, image, ci, pos)
    std::optional<Gemm> gemm;                    // products(tile, out channel, pos) = gemm->output
    Halide::Func output{"conv2d"};
    ops::WinogradMatrices matrices;
    ops::WinogradTiles tiles;

    Conv2dWinograd(Halide::Func input, Halide::Func packed, Halide::Func bias, const Conv2dShape &s,
                   const ops::Epilogue &epilogue, int m, int panel_width, int k_block)
        : matrices(ops::winograd_matrices(m)), tiles(ops::winograd_tiles(s, m)) {
        using namespace Halide;
        const int alpha = matrices.alpha;
        // Tiles past the right and bottom edges read zeros, like the padding.
        define_padded(padded, input, s, true);

        // Bᵀ d B, as one expression per position.
        std::vector<Expr> by_position;
        for (int i = 0; i < alpha; i++) {
            std::vector<Expr> rows(alpha);  // (Bᵀ d)(i, b)
            for (int b = 0; b < alpha; b++)
                for (int a = 0; a < alpha; a++)
                    rows[b] = add_term(rows[b], matrices.bt[i * alpha + a],
                                       padded(tx * m + b, ty * m + a, ci, image));
            for (int j = 0; j < alpha; j++) {
                Expr sum;
                for (int b = 0; b < alpha; b++)
                    if (rows[b].defined()) sum = add_term(sum, matrices.bt[j * alpha + b], rows[b]);
                by_position.push_back(sum.defined() ? sum : Expr(0.0f));
            }
        }
        transformed(tx, ty, image, ci, pos) = mux(pos, by_position);

        const int panels = ops::panel_count(s.out_channels, panel_width);
        const ops::GemmDims dims{tiles.count, s.out_channels, s.in_channels, alpha * alpha};
        Var k{"k"}, gx{"gx"}, gy{"gy"}, gn{"gn"};
        Func a{"winograd_a"}, b{"winograd_b"};
        Expr tile = min(gy, tiles.count - 1);  // register tiles past the last tile: never stored
        a(k, gy, gn) = transformed(tile % tiles.x, (tile / tiles.x) % tiles.y, tile / (tiles.x * tiles.y), k, gn);
        b(gx, k, gn) = packed(gx % panel_width, k, min(gx / panel_width, panels - 1), gn);
        gemm.emplace(a, b, Func(), BiasAxis::None, dims, ops::Epilogue{}, k_block, 3, true);
        Func products = gemm->output;

        // Aᵀ M A for output pixel (x % m, y % m) of its tile.
        Expr t = (n * tiles.y + y / m) * tiles.x + x / m;
        std::vector<Expr> by_pixel;
        for (int p = 0; p < m; p++) {
            std::vector<Expr> rows(alpha);  // (Aᵀ M)(p, j)
            for (int j = 0; j < alpha; j++)
                for (int i = 0; i < alpha; i++) rows[j] = add_term(rows[j], matrices.at[p * alpha + i], products(t, c, i * alpha + j));
            for (int q = 0; q < m; q++) {
                Expr sum;
                for (int j = 0; j < alpha; j++)
                    if (rows[j].defined()) sum = add_term(sum, matrices.at[q * alpha + j], rows[j]);
                by_pixel.push_back(sum);
            }
        }
        Expr value = mux((y % m) * m + x % m, by_pixel);
        if (epilogue.bias) value = value + bias(c);
        if (epilogue.relu) value = leaky_relu(value, epilogue.relu_slope);
        output(x, y, c, n) = value;
    }

  private:
    // sum + coefficient · term, skipping zero coefficients and multiplying by none for ±1;
    // `sum` may be undefined (nothing yet).
    static Halide::Expr add_term(const Halide::Expr &sum, double coefficient, const Halide::Expr &term) {
        if (coefficient == 0) return sum;
        const Halide::Expr scaled = coefficient == 1    ? term
                                    : coefficient == -1 ? -term
                                                        : Halide::Expr(float(coefficient)) * term;
        return sum.defined() ? sum + scaled : scaled;
    }
};

}  // namespace cortado
