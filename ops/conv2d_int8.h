// An 8-bit convolution (Halide-free): the shape of an fp32 convolution plus how its input is
// quantized. The kernel reads an fp32 input and quantizes it as it stages it, multiplies unsigned
// 8-bit activations by signed 8-bit weights into 32-bit sums, and writes fp32: bias, scale and the
// fused epilogue run on the dequantized sum. The types change only inside the kernel, so the
// layers around it stay fp32.
//
// The arithmetic, which the kernel, the runtime's packing and the reference all follow:
//   - activations: q = clamp(round(x · (1 / scale)) + zero_point, 0, 255), the reciprocal a float,
//     ties to even; the padding reads as zero_point (the value 0);
//   - weights, per output channel c: s_w[c] = max |w[c]| / L (1 for an all-zero channel), or
//     the model's own where it gave int8 weights (ConvolutionParams::int8_weight_scales),
//     w_q = clamp(round(w / s_w[c]), -L - 1, min(L + 1, 127)), with L the shape's weight levels: 127, or 63
//     where the kernel sums pairs of products in 16 bits (kInt8PairSumLevels);
//   - y[c] = (sum w_q q - zero_point sum w_q) scale s_w[c] + bias[c], then the epilogue.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "ops/conv2d.h"
#include "ops/op.h"

namespace cortado::ops {

struct Conv2dInt8Shape {
    static constexpr const char *kOp = "conv2d_int8";
    Conv2dShape conv;
    float input_scale = 1.0f;
    int input_zero_point = 0;
    int weight_levels = 127;  // kInt8WeightLevels or kInt8PairSumLevels

    template <typename Visit>
    void fields(Visit &&visit) {
        conv.fields(visit);
        visit("input_scale", input_scale), visit("input_zero_point", input_zero_point);
        visit("weight_levels", weight_levels);
    }
};

using Conv2dInt8Op = Op<Conv2dInt8Shape>;

// Input channels of a group are summed four at a time (one 32-bit word of four bytes per
// product: x86's vpdpbusd, ARM's sdot, HVX's vrmpy, CUDA's dp4a); a group's channels are padded
// to a multiple of four with zero weights.
inline constexpr int kInt8ChannelsPerWord = 4;
inline int int8_channel_words(const Conv2dShape &s) {
    return (s.in_channels / s.group + kInt8ChannelsPerWord - 1) / kInt8ChannelsPerWord;
}
// The reduction positions of one output: (word of channels, ky, kx), kx fastest.
inline int int8_positions(const Conv2dShape &s) { return int8_channel_words(s) * s.kernel_h * s.kernel_w; }

// Weights packed for the int8 kernel (Packing::Int8Panels), innermost first:
// (channel within the word, lane, position, panel), position = (word · kernel_h + ky) · kernel_w
// + kx: a panel holds `width` output channels, and for each reduction position their four
// channels' weights lie together, one word per lane. `tap` is ky · kernel_w + kx, of `area`.
inline long long int8_packed_index(int positions, int width, int area, int out_channel, int channel_in_group, int tap) {
    const int panel = out_channel / width, lane = out_channel % width;
    const int word = channel_in_group / kInt8ChannelsPerWord, within = channel_in_group % kInt8ChannelsPerWord;
    const long long position = static_cast<long long>(word) * area + tap;
    return ((static_cast<long long>(panel) * positions + position) * width + lane) * kInt8ChannelsPerWord + within;
}

// The positive levels weights quantize to: 8 bits. x86 without VNNI has no exact four-way byte
// product; its vpmaddubsw sums two u8 x s8 products into a saturating 16-bit lane. With |w_q| <= 64
// the pair stays below 2^15 (255 x 64 x 2 = 32640), so its kernels take weights of 7 bits, as
// oneDNN's do on such CPUs (Algorithm::PairSums): scaled to 63 levels, and a model's own integers
// taken where they lie in -64..64 (onnxruntime's reduce_range writes them so).
inline constexpr int kInt8WeightLevels = 127;
inline constexpr int kInt8PairSumLevels = 63;
static_assert(2 * 255 * (kInt8PairSumLevels + 1) < (1 << 15), "a pair of products must fit a 16-bit lane");
// Levels a layer may quantize its weights to: a signed byte holds -levels - 1 .. levels + 1.
inline bool int8_weight_levels_valid(int levels) { return levels >= 1 && levels <= kInt8WeightLevels; }

// What activations are multiplied by: a multiply, where a division would cost the staging pass
// several times as much.
inline float int8_inverse_scale(float scale) { return 1.0f / scale; }
// 1 for an all-zero channel, or one whose step would underflow to 0.
inline float int8_weight_scale(float max_abs, int levels = kInt8WeightLevels) {
    const float scale = max_abs / float(levels);
    return scale > 0 ? scale : 1.0f;
}
// A NaN weight (or an infinite one over an infinite scale) quantizes to 0.
inline int quantize_weight(float w, float scale, int levels = kInt8WeightLevels) {
    const float level = std::nearbyint(w / scale);
    const float lowest = -float(levels) - 1.0f, highest = std::min(float(levels) + 1.0f, 127.0f);
    return std::isnan(level) ? 0 : static_cast<int>(std::clamp(level, lowest, highest));
}
// A NaN reads as the zero point here, in the reference; the kernel's result for a NaN input is
// unspecified (int8 layers do not carry NaN on, and the non-finite checks run in fp32).
inline int quantize_activation(float x, float scale, int zero_point) {
    if (std::isnan(x)) return zero_point;
    return static_cast<int>(
        std::clamp(std::nearbyint(x * int8_inverse_scale(scale)) + float(zero_point), 0.0f, 255.0f));
}

// The most input channels per group for which a 32-bit sum of 255 x 128 products cannot overflow.
inline bool int8_sum_fits(const Conv2dShape &s) {
    return static_cast<long long>(int8_positions(s)) * kInt8ChannelsPerWord * 255 * 128 < (1LL << 31);
}

}  // namespace cortado::ops
