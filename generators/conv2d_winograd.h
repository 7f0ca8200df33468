// Convolution by Winograd's F(m×m, r×r) (ops/winograd.h), with the batched products
// on the GEMM algorithm (generators/gemm.h):
// - `transformed(tx, ty, image, ci, pos)`: Bᵀ d B of each tile's α×α input patch d, position
//   `pos` = i·α + j of the α² that the transform gives;
// - `gemm`: per position and group, (tiles × in channels) · (in channels × out channels) of the
//   group, the weights transformed (G g Gᵀ) and packed at create time in column panels per
//   position: packed(lane, ci within the group, panel, pos); C is stored as products(tile, out
//   channel within the group, group · α² + pos);
// - `output(x, y, c, n)`: Aᵀ M A of each tile, plus the bias, then the epilogue's residual sum
//   and activations.
// Channel-blocked tensors (ops::Layout): a blocked input is read through
// define_blocked_padded; a blocked output, written only with the products channel-innermost, is
// output(xv, y, cb, n) = pixel (xv / b, y) of channel cb·b + xv % b.
// The transforms are written out term by term from the constant matrices, without the zero
// terms; a schedule that unrolls `pos` (and the tile's x and y) leaves no selection at run time.
#pragma once

#include <optional>
#include <vector>

#include "Halide.h"
#include "generators/conv2d.h"
#include "generators/gemm.h"
#include "ops/winograd.h"

namespace cortado {

struct Conv2dWinograd {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::Var tx{"tx"}, ty{"ty"}, image{"image"}, ci{"ci"}, pos{"pos"};
    Halide::Var xv{"xv"}, cb{"cb"};  // a blocked output's (b·x + lane, channel block)
    Halide::Func padded{"padded"};               // zero beyond every edge of the input
    Halide::Func transformed{"winograd_input"};  // (tx, ty, image, ci, pos)
    std::optional<Gemm> gemm;                    // products(tile, out channel, pos) = gemm->output
    Halide::Func output{"conv2d"};
    ops::WinogradMatrices matrices;
    ops::WinogradTiles tiles;
    bool channels_innermost;
    int groups, out_per_group, input_block, output_block;

    Conv2dWinograd(Halide::Func input, Halide::Func packed, Halide::Func bias, const Conv2dShape &s,
                   const ops::Epilogue &epilogue, int m, int panel_width, int k_block, bool channels_innermost_products,
                   int input_channel_block = 0, int output_channel_block = 0, Halide::Func residual = Halide::Func())
        : matrices(ops::winograd_matrices(m, s.kernel_h)),
          tiles(ops::winograd_tiles(s, m)),
          channels_innermost(channels_innermost_products),
          groups(s.group),
          out_per_group(s.out_channels / s.group),
          input_block(input_channel_block),
          output_block(output_channel_block) {
        using namespace Halide;
        const int alpha = matrices.alpha;
        // Tiles past the right and bottom edges read zeros, like the padding.
        if (input_block == 0) define_padded(padded, input, s, true);
        else define_blocked_padded(padded, input, s, input_block);

        // Bᵀ d B, as one expression per position.
        std::vector<Expr> by_position;
        for (int i = 0; i < alpha; i++) {
            std::vector<Expr> rows(alpha);  // (Bᵀ d)(i, b)
            for (int b = 0; b < alpha; b++)
                for (int a = 0; a < alpha; a++)
                    rows[b] = add_term(rows[b], matrices.bt[i * alpha + a],
                                       read_padded(padded, input_block, tx * m + b, ty * m + a, ci, image));
            for (int j = 0; j < alpha; j++) {
                Expr sum;
                for (int b = 0; b < alpha; b++)
                    if (rows[b].defined()) sum = add_term(sum, matrices.bt[j * alpha + b], rows[b]);
                by_position.push_back(sum.defined() ? sum : Expr(0.0f));
            }
        }
        transformed(tx, ty, image, ci, pos) = mux(pos, by_position);

        // Groups are more products: gn = group · α² + position, each over its group's input
        // channels and into its output channels, whose columns are numbered across the groups
        // (so a panel may cross a group).
        const int panels = ops::panel_count(s.out_channels, panel_width);
        const int positions = alpha * alpha;
        const int in_per_group = s.in_channels / s.group;
        const ops::GemmDims dims = ops::winograd_gemm_dims(s, m);
        Var k{"k"}, gx{"gx"}, gy{"gy"}, gn{"gn"};
        Func a{"winograd_a"}, b{"winograd_b"};
        Expr tile = min(gy, tiles.count - 1);  // register tiles past the last tile: never stored
        Expr group = gn / positions, position = gn % positions;
        if (s.group == 1) group = 0, position = gn;
        a(k, gy, gn) = transformed(tile % tiles.x, (tile / tiles.x) % tiles.y, tile / (tiles.x * tiles.y),
                                   group * in_per_group + k, position);
        Expr column = group * out_per_group + gx;
        b(gx, k, gn) = packed(column % panel_width, k, min(column / panel_width, panels - 1), position);
        gemm.emplace(a, b, Func(), BiasAxis::None, dims, ops::Epilogue{}, k_block, 3, !channels_innermost);
        Func products = gemm->output;

        // Aᵀ M A for output pixel (x % m, y % m) of its tile.
        Expr t = (n * tiles.y + y / m) * tiles.x + x / m;
        Expr c_in_group = s.group == 1 ? Expr(c) : c % out_per_group;
        Expr first_product = s.group == 1 ? Expr(0) : (c / out_per_group) * positions;
        std::vector<Expr> by_pixel;
        for (int p = 0; p < m; p++) {
            std::vector<Expr> rows(alpha);  // (Aᵀ M)(p, j)
            for (int j = 0; j < alpha; j++)
                for (int i = 0; i < alpha; i++)
                    rows[j] = add_term(rows[j], matrices.at[p * alpha + i],
                                       channels_innermost ? products(c_in_group, t, first_product + i * alpha + j)
                                                          : products(t, c_in_group, first_product + i * alpha + j));
            for (int q = 0; q < m; q++) {
                Expr sum;
                for (int j = 0; j < alpha; j++)
                    if (rows[j].defined()) sum = add_term(sum, matrices.at[q * alpha + j], rows[j]);
                by_pixel.push_back(sum);
            }
        }
        Expr value = mux((y % m) * m + x % m, by_pixel);
        if (epilogue.bias) value = value + bias(c);
        // The residual is read in the output's layout.
        if (output_block == 0) {
            output(x, y, c, n) = fused_activations(value, epilogue, residual_at(residual, {x, y, c, n}));
            return;
        }
        // The blocked output's element of pixel (x, y, c, n) is (b·x + c % b, y, c / b, n).
        Func pixel{"winograd_pixel"};  // (x, y, c, n), inlined into the blocked output
        pixel(x, y, c, n) = fused_activations(
            value, epilogue,
            residual_at(residual, {blocked_column(x, c, output_block), y, channel_block(c, output_block), n}));
        output(xv, y, cb, n) = pixel(nchw_column(xv, output_block), y, nchw_channel(xv, cb, output_block), n);
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
