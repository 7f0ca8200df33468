// Convolution (Caffe semantics: cross-correlation, groups, dilation, zero padding, bias), with
// its fused epilogue (ops::Epilogue: a residual sum, ReLU, activation). Pure algorithm: the variants' schedules live in schedules/<family>/.
//
// Buffers use Halide's innermost-first order, which is Caffe's NCHW memory order:
// input (x, y, c, n), weights (kx, ky, ci within group, co), bias (co), output (x, y, co, n).
#pragma once

#include "Halide.h"
#include "generators/channel_blocks.h"
#include "generators/elementwise.h"
#include "ops/conv2d.h"

namespace cortado {

using ops::Conv2dShape;

// padded(x, y, c, n): the input shifted by the padding, zero outside it; the input itself when
// the layer has no padding, unless `reads_past_edges` (Winograd's last tiles).
inline void define_padded(Halide::Func &padded, Halide::Func input, const Conv2dShape &s,
                          bool reads_past_edges = false) {
    using namespace Halide;
    Var x{"x"}, y{"y"}, c{"c"}, n{"n"};  // the names the schedules use
    if (s.pad_h > 0 || s.pad_w > 0 || reads_past_edges) {
        Func zero_outside = BoundaryConditions::constant_exterior(
            input, 0.0f, {{0, s.in_w}, {0, s.in_h}, {0, s.in_channels}, {0, s.batch}});
        padded(x, y, c, n) = zero_outside(x - s.pad_w, y - s.pad_h, c, n);
    } else {
        padded(x, y, c, n) = input(x, y, c, n);
    }
}

// The same for a channel-blocked input (ops::Layout, `block` channels per block), read as its
// dense array (block·x + lane, y, channel block, n): padded(v, y, cb, n), zero outside, so that
// the copy schedules make of it runs along contiguous memory.
inline void define_blocked_padded(Halide::Func &padded, Halide::Func input, const Conv2dShape &s, int block) {
    using namespace Halide;
    Var v{"v"}, y{"y"}, cb{"cb"}, n{"n"};
    Func zero_outside = BoundaryConditions::constant_exterior(
        input, 0.0f, {{0, block * s.in_w}, {0, s.in_h}, {0, s.in_channels / block}, {0, s.batch}});
    padded(v, y, cb, n) = zero_outside(v - block * s.pad_w, y - s.pad_h, cb, n);
}

// The same from an NCHW input (`input_block` 0) or one in other blocks, staged into blocks of
// `block` channels (a depthwise layer whose lanes each read their own channel): a vector of
// lanes is then one load. Lanes past the last channel read zeros.
inline void define_padded_in_blocks(Halide::Func &padded, Halide::Func input, const Conv2dShape &s, int block,
                                    int input_block) {
    using namespace Halide;
    Var v{"v"}, y{"y"}, cb{"cb"}, n{"n"};
    const Expr x = nchw_column(v, block) - s.pad_w, c = nchw_channel(v, cb, block);
    if (input_block == 0) {
        Func zero_outside = BoundaryConditions::constant_exterior(
            input, 0.0f, {{0, s.in_w}, {0, s.in_h}, {0, s.in_channels}, {0, s.batch}});
        padded(v, y, cb, n) = zero_outside(x, y - s.pad_h, c, n);
        return;
    }
    Func zero_outside = BoundaryConditions::constant_exterior(
        input, 0.0f, {{0, input_block * s.in_w}, {0, s.in_h}, {0, s.in_channels / input_block}, {0, s.batch}});
    padded(v, y, cb, n) =
        zero_outside(blocked_column(x, c, input_block), y - s.pad_h, channel_block(c, input_block), n);
}

// Input element (x, y, c, n) of a padded input made by define_padded (block 0),
// define_blocked_padded or define_padded_in_blocks.
inline Halide::Expr read_padded(Halide::Func padded, int block, Halide::Expr x, Halide::Expr y, Halide::Expr c,
                                Halide::Expr n) {
    return block == 0 ? padded(x, y, c, n) : padded(blocked_column(x, c, block), y, channel_block(c, block), n);
}

struct Conv2d {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::RDom r;                 // (kx, ky, ci within the group)
    Halide::Func weights;           // the weights input, for schedules that stage it
    Halide::Func padded{"padded"};  // the input with zeros outside; the input itself when pad is 0
    Halide::Func conv{"conv"};      // bias (or 0) + sum over r
    Halide::Func output{"conv2d"};  // conv with the activation applied

    // `reads_past_edges`: schedules may compute outputs beyond the output's edges (generators/
    // conv2d_pool.h's masked taps), so the input reads zeros outside even without padding.
    Conv2d(Halide::Func input, Halide::Func weights_input, Halide::Func bias, const Conv2dShape &s,
           const ops::Epilogue &epilogue, Halide::Func residual = Halide::Func(), bool reads_past_edges = false)
        : weights(weights_input) {
        using namespace Halide;
        define_padded(padded, input, s, reads_past_edges);
        const int in_per_group = s.in_channels / s.group;
        const int out_per_group = s.out_channels / s.group;
        r = RDom(0, s.kernel_w, 0, s.kernel_h, 0, in_per_group, "r");
        Expr first_in_channel = (c / out_per_group) * in_per_group;
        if (s.group == 1) first_in_channel = 0;
        conv(x, y, c, n) = epilogue.bias ? Expr(bias(c)) : Expr(0.0f);
        conv(x, y, c, n) +=
            weights(r.x, r.y, r.z, c) *
            padded(x * s.stride_w + r.x * s.dilation_w, y * s.stride_h + r.y * s.dilation_h, first_in_channel + r.z, n);
        output(x, y, c, n) = fused_activations(conv(x, y, c, n), epilogue, residual_at(residual, {x, y, c, n}));
    }
};

}  // namespace cortado
