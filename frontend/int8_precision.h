// The precision pass: marks the convolutions a calibration chose (`cortado quantize`, its
// .qparams file read by compiler/qparams.h) to compute in int8 (ops/conv2d_int8.h), with their
// inputs' quantization. It runs on the graph as imported, before fusion, so that the fused
// network, the unfused one and the reference interpreter see the same int8 layers.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "frontend/graph.h"

namespace cortado {

// Its weights quantize to `weight_levels` (the target's, compiler/int8_support.h). Throws
// CompileError naming `source` for a layer the graph lacks, one that is not a convolution, a
// scale or zero point out of range, and a layer calibrated on another blob than the one it reads.
void apply_int8_precision(Graph &graph, const std::map<std::string, Int8Input> &layers, const std::string &source,
                          int weight_levels = 127);

// The quantized model's own int8 (`--precision int8` without a .qparams file): each convolution
// that reads a Quantize activation of 256 levels (ONNX's QuantizeLinear to uint8 or int8,
// frontend/onnx_quantization.h) computes in int8 with its scale and zero point, where `refusal`
// (compiler/int8_support.h) says nothing against it; without one, where it is not depthwise. A
// Quantize activation read only by such convolutions is dropped: they quantize its input to the
// same integers themselves. Weights quantize to `weight_levels`, except those the model gives as
// int8 that need more: they keep their 8 bits. Throws CompileError naming `source` when the network has no Quantize
// activation that a convolution reads.
void apply_model_int8_precision(Graph &graph, const std::string &source,
                                const std::function<std::string(const Graph &, const Layer &)> &refusal = {},
                                int weight_levels = 127);

// Whether activations can be quantized by `scale`: positive, its reciprocal finite.
bool int8_scale_usable(float scale);

// Why a convolution stays in fp32 under int8 precision; empty when it can run in int8. Depthwise
// layers (one input channel per group) would waste three of every four products.
std::string int8_unsupported_reason(const ConvolutionParams &p, int64_t in_channels);

}  // namespace cortado
