// The GEMM algorithm every GEMM-shaped kernel uses: C(x, y, n) = Σ_k a(k, y, n) · b(x, k, n),
// then a bias (per column x or per row y) and the epilogue's activation. x is the axis the
// schedules vectorise (b is read along it), y the axis a is broadcast along, n an optional batch
// of independent products (the images of a 1x1 convolution). `output` has the dimensions of its
// generator's output buffer: (x, y), (x, y, n) or (x, y, n, unit), the last of extent 1; with
// `transposed_output`, y comes before x (C stored column-major); with an `output_block` b as
// well, C is stored channel-blocked (ops::Layout): (b·y + x % b, x / b, n, unit).
// K is summed in blocks of `k_block`: `block` is one block's partial product, which schedules
// keep in registers, and `acc` adds the blocks up (when one block covers K, `acc` is the bias
// plus that block, with no update).
#pragma once

#include <algorithm>
#include <vector>

#include "Halide.h"
#include "generators/channel_blocks.h"
#include "generators/elementwise.h"
#include "ops/gemm.h"

namespace cortado {

enum class BiasAxis { None, Columns, Rows };

struct Gemm {
    Halide::Var x{"x"}, y{"y"}, n{"n"}, unit{"unit"}, ko{"ko"};
    Halide::Var v{"v"}, xb{"xb"};  // a blocked output's (b·y + x % b, x / b)
    Halide::RDom r, blocks;
    Halide::Func a, b;
    Halide::Func block{"gemm_block"}, acc{"gemm_acc"}, output{"gemm"};
    ops::GemmDims dims;
    int k_block;
    bool single_block;
    int output_block;
    Halide::Func residual;  // the tensor the epilogue adds, where it adds one
    // Set by a generator whose a holds K channel-blocked by a_block (ops::Layout): the schedules
    // then unroll the sum by whole blocks.
    int a_block = 0;

    Gemm(Halide::Func a_operand, Halide::Func b_operand, Halide::Func bias, BiasAxis bias_axis, const ops::GemmDims &d,
         const ops::Epilogue &epilogue, int k_block_knob, int output_dimensions, bool transposed_output = false,
         int output_channel_block = 0, Halide::Func residual = Halide::Func())
        : a(a_operand),
          b(b_operand),
          dims(d),
          k_block(std::clamp(k_block_knob, 1, d.depth)),
          output_block(output_channel_block),
          residual(residual) {
        using namespace Halide;
        const int block_count = (d.depth + k_block - 1) / k_block;
        single_block = block_count == 1;
        // Block ko sums k = ko·k_block + r for r in [0, k_block), stopping at K: the predicate,
        // there only when the last block is short, bounds its loop, so it needs no padding
        // (the clamp tells bounds inference what the predicate guarantees).
        r = RDom(0, k_block, "r");
        const bool short_last_block = d.depth % k_block != 0;
        if (short_last_block) r.where(ko * k_block + r < d.depth);
        const Expr k = short_last_block ? min(ko * k_block + r, d.depth - 1) : ko * k_block + r;
        block(x, y, n, ko) = 0.0f;
        block(x, y, n, ko) += a(k, y, n) * b(x, k, n);
        // Schedules round the accumulator up to whole register tiles: the bias index is clamped.
        Expr init = bias_axis == BiasAxis::Columns ? bias(min(x, d.cols - 1))
                    : bias_axis == BiasAxis::Rows  ? bias(min(y, d.rows - 1))
                                                   : Expr(0.0f);
        blocks = RDom(0, block_count, "blocks");
        if (single_block) {
            acc(x, y, n) = init + block(x, y, n, 0);
        } else {
            acc(x, y, n) = init;
            acc(x, y, n) += block(x, y, n, blocks);
        }
        // The residual is read where the output is written: at the output's coordinates.
        const auto activate = [&](Expr value, const std::vector<Var> &at) {
            return fused_activations(value, epilogue, residual_at(residual, {at.begin(), at.end()}));
        };
        if (output_block > 0) {
            output(v, xb, n, unit) =
                activate(acc(nchw_channel(v, xb, output_block), nchw_column(v, output_block), n), {v, xb, n, unit});
            return;
        }
        std::vector<Var> args{transposed_output ? y : x, transposed_output ? x : y, n, unit};
        args.resize(output_dimensions);
        output(args) = activate(acc(x, y, output_dimensions > 2 ? Expr(n) : Expr(0)), args);
    }
};

}  // namespace cortado
