// Runs a whole cortado Graph with the double-precision reference ops, giving tests the expected
// value of every blob to compare a compiled network against.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/reference/reference_ops.h"
#include "frontend/graph.h"

namespace cortado::reference {

// Blobs of each learned layer in Caffe's order, keyed by layer name:
// Convolution and InnerProduct [weights, bias if bias_term], BatchNorm [mean, variance,
// scale_factor], Scale [scale, bias if bias_term].
using WeightMap = std::map<std::string, std::vector<Tensor>>;

// Runs the graph layer by layer and returns one Tensor per Value id (graph.values.size());
// `inputs` are given in graph.inputs order. Output shapes are taken from graph.values, and a
// layer whose computed shape disagrees with shape inference is an error. Throws
// std::runtime_error naming the layer on anything it cannot do (missing weights, unknown type,
// mismatched operands).
// `anchors`, by value id: values as the compiled network computed them (blob_check.h). A value
// within float rounding of a quantization step's edge lands on either step, and one step's
// difference, carried through later quantized layers, grows past any fixed tolerance; anchored,
// each quantized layer is checked on the input it was given. The same holds for rounding to
// half: an int8 or fp16 convolution (ConvolutionParams::int8_input, fp16) takes its input's
// anchor instead of the reference's own value;
// a Quantize activation's output takes its anchor where every element is within one step of the
// reference's own and at most 1 in 100 differ at all (otherwise the reference keeps its own, and
// the comparison shows the difference).
std::vector<Tensor> run_graph(const Graph &graph, const WeightMap &weights, const std::vector<Tensor> &inputs,
                              const std::map<int, Tensor> *anchors = nullptr);

// ||actual - expected|| / ||expected||, reading expected.data.size() floats from `actual`.
// +inf if expected's data does not match its shape, or if `actual` holds a NaN or infinity;
// against an all-zero reference it is 0 for an exact match and +inf otherwise.
double relative_l2_error(const float *actual, const Tensor &expected);

// The same relative error and the root-mean-square difference, from one pass (rms is +inf where
// the relative error is for a malformed or non-finite input).
struct L2Errors {
    double relative, rms;
};
L2Errors l2_errors(const float *actual, const Tensor &expected);

}  // namespace cortado::reference
