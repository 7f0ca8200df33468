// Constant tensors of an ONNX model (initializers, Constant nodes, and what is computed from them
// at import), and the ops cortado evaluates on them: a node whose inputs are all constant is
// folded into a constant, so shape arithmetic (Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape, as exporters write a flatten) and weights made by ConstantOfShape or arithmetic import
// like their simple forms.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/graph.h"
#include "onnx/onnx.pb.h"

namespace cortado {

// Floating-point tensors hold `floats`, integer and boolean ones `integers`; one of the two.
struct OnnxTensor {
    Shape dims;
    std::vector<float> floats;
    std::vector<int64_t> integers;
    bool integer = false;
    // onnx::TensorProto's element type, for a tensor read from the model; 0 for one computed at
    // import. QuantizeLinear's zero point says by it which integers it quantizes to.
    int data_type = 0;

    int64_t count() const;
};

// The largest tensor folding makes: 1 GiB of floats, room for the largest weights of the model
// zoo (VGG-19's fc6, 4096 x 25088, made by ConstantOfShape).
inline constexpr int64_t kMaxFoldedElements = int64_t(1) << 28;

// A folding error, worded for the node that caused it (the importer adds the node's name).
struct FoldError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Whether cortado evaluates `op` on constant inputs.
bool foldable_op(const std::string &op);

// `node` of the model's `opset` evaluated on `inputs` (null for an absent optional input).
// Throws FoldError for inputs it cannot take (a bad axis, an index out of range, a result that
// is too large or, where a shape is needed, not a whole number).
// numpy's start:end:step of an axis of `size` (negative positions count from the end; positions
// clamp to the axis): the first index and the count. A step of 0 throws FoldError.
struct SliceWindow {
    int64_t start = 0, count = 0;
};
SliceWindow slice_window(int64_t size, int64_t start, int64_t end, int64_t step);

OnnxTensor fold_constant(const onnx::NodeProto &node, int64_t opset, const std::vector<const OnnxTensor *> &inputs);

}  // namespace cortado
