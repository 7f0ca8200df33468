// A half-precision convolution (Halide-free): the shape of an fp32 convolution, computed on
// operands rounded to IEEE binary16. The kernel reads an fp32 input and rounds it to half as it
// stages it; the weights are packed as halves; products are summed in half precision over
// `chunk` input channels at a time (fma.rn.f16x2 on CUDA for pairs of output channels), and each
// chunk's sum is added into an fp32 accumulator, so a long reduction does not lose the precision a
// half accumulator would; bias and the fused epilogue run in fp32, and the output is fp32. The
// types change only inside the kernel, so the layers around it stay fp32.
//
// The arithmetic, which the kernel, the runtime's packing and the reference all follow (the
// runtime rounds weights after folding a BatchNorm or Scale into them, the reference before: the
// two differ by a rounding step of a few weights):
//   - input and weights: rounded to the nearest half, ties to even (half_bits), beyond 65504 to
//     infinity; the padding is 0;
//   - y[c] = sum over chunks of (the chunk's products summed in half) + bias[c], then the epilogue.
// The reference computes the products of the rounded operands in double: what the kernel's half
// sums lose is the variant's tolerance.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ops/conv2d.h"
#include "ops/op.h"

namespace cortado::ops {

struct Conv2dFp16Shape {
    static constexpr const char *kOp = "conv2d_fp16";
    Conv2dShape conv;

    template <typename Visit>
    void fields(Visit &&visit) {
        conv.fields(visit);
    }
};

using Conv2dFp16Op = Op<Conv2dFp16Shape>;

// The binary16 bits of `value`, rounded to nearest, ties to even.
inline uint16_t half_bits(float value) {
    uint32_t f;
    std::memcpy(&f, &value, sizeof f);
    const uint16_t sign = uint16_t((f >> 16) & 0x8000u);
    const uint32_t magnitude = f & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return uint16_t(sign | 0x7e00u);   // NaN stays NaN
    if (magnitude >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // 65520 and above round to infinity
    if (magnitude < 0x38800000u) {                                  // below 2^-14: a multiple of 2^-24
        const float units = std::nearbyint(std::fabs(value) * 16777216.0f);
        return uint16_t(sign | uint16_t(units));
    }
    uint32_t h = (magnitude - 0x38000000u) >> 13;  // the exponent rebiased from 127 to 15
    const uint32_t rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
    return uint16_t(sign | h);
}

inline float half_value(uint16_t h) {
    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float v;
    if (exponent == 0) v = std::ldexp(float(mantissa), -24);
    else if (exponent == 31)
        v = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else v = std::ldexp(float(mantissa | 0x400), exponent - 25);
    return (h & 0x8000) ? -v : v;
}

inline float round_to_half(float x) { return half_value(half_bits(x)); }

// The input channels a chunk of the reduction sums in half precision: the largest divisor of a
// group's channels not above `most`, so every chunk is whole.
inline int fp16_chunk_channels(const Conv2dShape &s, int most) {
    const int in_per_group = s.in_channels / s.group;
    for (int c = std::min(most, in_per_group); c > 1; c--)
        if (in_per_group % c == 0) return c;
    return 1;
}

}  // namespace cortado::ops
