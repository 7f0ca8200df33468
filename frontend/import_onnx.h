// Reads an ONNX model (every opset from 1 to 28; docs/onnx-support.md) into
// the same graph IR as a Caffe prototxt, mapping each node to the layer with the same semantics
// (Conv to Convolution, Gemm to InnerProduct, BatchNormalization to BatchNorm + Scale, ...). The
// initializers become the layers' weights, in Caffe's blob order, on Graph::weights. Nodes and
// attributes cortado cannot yet compute are refused with the node's name, op type and opset.
#pragma once

#include <string>

#include "frontend/graph.h"
#include "frontend/import_caffe.h"

namespace cortado {

// True when the bytes start like a serialised ONNX ModelProto rather than a text prototxt.
bool looks_like_onnx(const std::string &bytes);

// Throws CompileError naming the file and the node.
Graph import_onnx_model(const std::string &bytes, const std::string &path, const ImportOptions &options);

}  // namespace cortado
