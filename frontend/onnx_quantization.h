// ONNX's linear quantization as cortado imports it (QuantizeLinear, DequantizeLinear,
// QLinearConv, QLinearMatMul). An integer tensor of computed data is held as the floats it stands
// for, (q - zero point) x scale, made by a Quantize activation (ops/activation.h); the importer
// remembers its scale and zero point, so that DequantizeLinear is then no step at all and the
// precision pass (frontend/int8_precision.h) can run the convolutions that read it in int8.
// Integer constants (quantized weights and biases) are dequantized at import.
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/onnx_constants.h"

namespace cortado {

// How a tensor is quantized: one scale and zero point for the whole tensor (`axis` -1) or one per
// index of `axis`; `lowest`..`highest` is the integer type's range.
struct LinearQuantization {
    std::vector<float> scales;
    std::vector<int64_t> zero_points;
    int64_t axis = -1;
    int lowest = 0, highest = 255;

    bool per_tensor() const { return axis < 0; }
    bool operator==(const LinearQuantization &other) const;
};

// The parameters of a QuantizeLinear or DequantizeLinear (or a QLinear op's operand) on a tensor
// of `dims`: `scale` and `zero_point` (null when absent: 0 of `default_type`), per tensor when
// the scale is one value, else along `axis` (negative counts from the end). The integer type is
// the zero point's (uint8, int8, uint16, int16, or int32 for a dequantized bias). Throws FoldError
// for anything else: another
// type, a scale that is not positive and finite, a zero point outside its type, mismatched sizes.
LinearQuantization linear_quantization(const OnnxTensor &scale, const OnnxTensor *zero_point, int64_t axis,
                                       const Shape &dims, int default_type);

// DequantizeLinear of an integer constant: (q - zero point) x scale, in floats.
OnnxTensor dequantize_constant(const OnnxTensor &q, const LinearQuantization &how);

// QuantizeLinear of a float constant: clamp(round(x / scale) + zero point), ties to even.
OnnxTensor quantize_constant(const OnnxTensor &x, const LinearQuantization &how);

// The scale of each of `count` indices of axis 0 (a per-tensor scale repeated): a convolution's
// weights' scale per output channel.
std::vector<float> scales_along_axis0(const LinearQuantization &how, int64_t count);

}  // namespace cortado
