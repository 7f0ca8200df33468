// The half-precision pass: marks the convolutions that compute in fp16 (ops/conv2d_fp16.h) under
// `--precision fp16`. It runs on the graph as imported, before fusion, so that the fused network,
// the unfused one and the reference interpreter see the same fp16 layers. Layers already in int8
// stay so; everything that is not a convolution stays fp32.
#pragma once

#include <functional>
#include <string>

#include "frontend/graph.h"

namespace cortado {

// Why a convolution stays in fp32 under fp16 precision whatever the target; empty when it can
// run in fp16. Depthwise layers (one input channel per group) have no reduction to speed up and
// keep their fp32 variants.
std::string fp16_unsupported_reason(const ConvolutionParams &p, int64_t in_channels);

// Marks every convolution in fp16 that `refusal` (compiler/int8_support.h fp16_refusal; unset:
// fp16_unsupported_reason alone) says nothing against. Throws CompileError naming `source`, and
// the first layer's reason, when no convolution can.
void apply_fp16_precision(Graph &graph, const std::string &source,
                          const std::function<std::string(const Graph &, const Layer &)> &refusal = {});

}  // namespace cortado
