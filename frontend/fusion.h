// Layers merged into the layer before them. fuse_activations fuses a ReLU, and after it one other
// activation (ReLU6's Clip, HardSwish, Sigmoid, ...), into the Convolution, InnerProduct,
// BatchNorm, Scale or Eltwise before it, when the activation works in place (Caffe's usual
// `top == bottom`; the ONNX importer makes one that alone reads such a layer's output do so), so
// no blob a user can observe disappears.
#pragma once

#include <functional>

#include "frontend/graph.h"

namespace cortado {

// One pass over the layers: `absorb(producer, layer)` is asked for each layer whose one input is
// the one output of the layer kept before it and has no other reader (the network's output
// counts as one). When it takes the layer (changing the producer's params), the producer writes
// the layer's outputs and lists it among its fused layers, and the layer goes.
void merge_into_producers(Graph &graph, const std::function<bool(Layer &producer, const Layer &layer)> &absorb);

// True for a Convolution, InnerProduct, BatchNorm, Scale or Eltwise without a fused activation:
// a layer whose kernel can take one more in its epilogue.
bool takes_an_activation(const LayerParams &params);

// First, x times its own gate, Sigmoid(x) or HardSigmoid(x) (SiLU and HardSwish as exporters
// write them), becomes one Silu or HardSwish layer where the gate's layer was, acting in place
// where x's producer comes right before and takes an activation; then the in-place activations
// fuse.
void fuse_activations(Graph &graph);

// x times a tensor broadcast to x's shape by an Expand that only the product reads, where the
// tensor varies along a run of x's axes [a, k) and matches x there (squeeze-and-excitation's
// per-image, per-channel scale (N, C, 1, 1), as ONNX importers write it): the Expand becomes a
// Reshape of the tensor to x's axes [a, k), which shares its storage, and the product a
// two-bottom Scale by it along those axes (axis a), so one channel-affine kernel reads x once
// and no broadcast copy is made.
void scale_by_broadcast_products(Graph &graph);

// An Eltwise sum of two inputs with coefficients 1 (ResNet's shortcut, after fuse_activations
// gave it its ReLU) fuses into the Convolution that writes one of its inputs for it alone and
// has no activation of its own: the convolution takes the other input as its second, adds it in
// its epilogue (ConvolutionParams::fused_sum), takes the sum's activations and outputs, and runs
// where the sum ran, when both inputs exist. Of two such convolutions, the later one fuses.
void fuse_residual_sums(Graph &graph);

// A Pad that pads nothing (PyTorch's exporter writes one before each AveragePool of DenseNet's
// transitions) merges into the layer before it, which then writes the Pad's output: a copy no
// kernel needs to make, and a step that would keep the tensors around it NCHW.
void merge_empty_pads(Graph &graph);

// Marks each Convolution whose output only the next layer reads, a MAX pooling whose windows
// ops::fusable_max_pooling takes (ConvolutionParams::pooling_follows): not int8 or fp16 layers,
// not global pooling, not a convolution with a fused sum. The graph keeps both layers; the
// planner runs the pair as one kernel (ops/conv2d_pool.h) where a tuning record or a knob
// chooses a fused variant, and as the two layers otherwise.
void fuse_max_poolings(Graph &graph);

// Marks every Concat in place (ConcatParams::in_place).
void concatenate_in_place(Graph &graph);

// What compile does to the imported graph: merge_empty_pads, fold_affines
// (frontend/affine_folding.h), scale_by_broadcast_products, fuse_activations, fuse_residual_sums,
// fuse_max_poolings and concatenate_in_place.
void fuse_layers(Graph &graph);

}  // namespace cortado
