// The int8 convolution (ops/conv2d_int8.h), output channels in the vector lanes as in
// Conv2dChannelLanes: the input quantized to unsigned bytes as it is staged, the weights signed
// bytes packed four input channels to a word (ops::int8_packed_index), so that each reduction
// step multiplies one word of activations, broadcast, by one word of weights per lane and sums
// the four products into the lane's 32-bit accumulator (x86's vpdpbusd, ARM's sdot, HVX's vrmpy
// where the target has them). The sum is dequantized and the epilogue runs in fp32.
// ARM's dot products multiply like-signed bytes only (sdot: s8 x s8), so on ARM targets the
// staged activations are signed, q - 128, and the zero point's term moves by the same 128: the
// sum of w_q (q - zero point) is unchanged.
// Tensors: input (x, y, c, n) as Caffe's NCHW; output and residual (q, c, n, 1) with q = y·out_w
// + x; weights (channel within the word, lane, position, panel); terms (c, 0) the weights' scale
// and (c, 1) the sum of their quantized values.
#pragma once

#include "Halide.h"
#include "generators/elementwise.h"
#include "ops/conv2d_int8.h"

namespace cortado {

struct Conv2dInt8 {
    Halide::Var q{"q"}, c{"c"}, n{"n"}, unit{"unit"};
    Halide::Var lane{"lane"}, panel{"panel"};
    Halide::Var within{"within"}, x{"x"}, y{"y"}, word{"word"};
    Halide::Var half{"half"}, kx{"kx"}, ky{"ky"};
    Halide::RDom r;       // (channel within the word, or with pair sums the pair; kx, ky, word within the group)
    Halide::RDom pair_r;  // pair sums: the channel within the pair
    Halide::Func quantized{"quantized"};  // (within, x, y, word, n): the padded input as bytes
    Halide::Func pairs{"pairs"};          // pair sums: (half, lane, q, n, panel, kx, ky, word) in 16 bits
    Halide::Func tile{"conv_int8"};       // tile(lane, q, n, panel): 32-bit sums
    Halide::Func output{"conv2d_int8"};   // (q, c, n, unit), the epilogue applied
    int width;

    Conv2dInt8(Halide::Func input, Halide::Func packed, Halide::Func bias, Halide::Func terms,
               const ops::Conv2dInt8Shape &shape, const ops::Epilogue &epilogue, int panel_width,
               bool signed_activations, bool pair_sums, Halide::Func residual = Halide::Func())
        : width(panel_width) {
        using namespace Halide;
        using namespace Halide::ConciseCasts;
        const ops::Conv2dShape &s = shape.conv;
        const int in_per_group = s.in_channels / s.group, out_per_group = s.out_channels / s.group;
        const int words = ops::int8_channel_words(s);
        // Padding and the channels that fill a group's last word read as the value 0.
        const Expr group = word / words, channel_in_group = word % words * ops::kInt8ChannelsPerWord + within;
        const Expr in_x = x - s.pad_w, in_y = y - s.pad_h;
        const Expr inside = in_x >= 0 && in_x < s.in_w && in_y >= 0 && in_y < s.in_h && channel_in_group < in_per_group;
        const Expr value = input(clamp(in_x, 0, s.in_w - 1), clamp(in_y, 0, s.in_h - 1),
                                 group * in_per_group + min(channel_in_group, in_per_group - 1), n);
        const Expr level = clamp(
            round(value * ops::int8_inverse_scale(shape.input_scale)) + float(shape.input_zero_point), 0.0f, 255.0f);
        // The staged byte and the zero point it is read against: q (unsigned), or q - 128 (signed).
        const int offset = signed_activations ? 128 : 0;
        const int zero_point = shape.input_zero_point - offset;
        const Type byte = signed_activations ? Int(8) : UInt(8);
        quantized(within, x, y, word, n) = select(inside, cast(byte, level - float(offset)), cast(byte, zero_point));

        const Expr px = q % s.out_w, py = q / s.out_w;
        const Expr first_word = s.group == 1 ? Expr(0) : (panel * width / out_per_group) * words;
        // The product of channel `within` of word `w` at tap (kx, ky).
        const auto product = [&](Expr within, Expr kx, Expr ky, Expr w) {
            return std::make_pair(quantized(within, px * s.stride_w + kx * s.dilation_w,
                                            py * s.stride_h + ky * s.dilation_h, first_word + w, n),
                                  packed(within, lane, (w * s.kernel_h + ky) * s.kernel_w + kx, panel));
        };
        tile(lane, q, n, panel) = 0;
        if (!pair_sums) {
            r = RDom(0, ops::kInt8ChannelsPerWord, 0, s.kernel_w, 0, s.kernel_h, 0, words, "r");
            const auto [a, w] = product(r[0], r[1], r[2], r[3]);
            tile(lane, q, n, panel) += i32(a) * i32(w);
        } else {
            // Each half of the word a saturating 16-bit sum of two products, exact for weights of
            // 7 bits (ops::kInt8PairSumLevels); then the halves into the 32-bit sum.
            pair_r = RDom(0, 2, "pair_r");
            const auto [a, w] = product(2 * half + pair_r, kx, ky, word);
            pairs(half, lane, q, n, panel, kx, ky, word) = i16(0);
            pairs(half, lane, q, n, panel, kx, ky, word) =
                saturating_add(pairs(half, lane, q, n, panel, kx, ky, word), widening_mul(a, w));
            r = RDom(0, 2, 0, s.kernel_w, 0, s.kernel_h, 0, words, "r");
            tile(lane, q, n, panel) += i32(pairs(r[0], lane, q, n, panel, r[1], r[2], r[3]));
        }
        // sum w_q (q - zero point) = sum w_q q - zero point · sum w_q (both less the offset), exact in 32 bits
        // (ops::int8_sum_fits); the weights' sum is a whole number held exactly in a float.
        const Expr sum = tile(c % width, q, n, c / width) - zero_point * i32(terms(c, 1));
        Expr y_value = f32(sum) * (shape.input_scale * terms(c, 0));
        if (epilogue.bias) y_value = y_value + bias(c);
        output(q, c, n, unit) = fused_activations(y_value, epilogue, residual_at(residual, {q, c, n, unit}));
    }
};

}  // namespace cortado
