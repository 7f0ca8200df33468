// The graph IR: what the frontend hands to every later pass.
//
// Values are in SSA form: each layer top is a new Value even when Caffe writes it in place, so
// passes never have to reason about overwrites. `Value::blob_name` keeps Caffe's name for
// dumping and error messages.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/layer_params.h"

namespace cortado {

using Shape = std::vector<int64_t>;

int64_t element_count(const Shape &shape);
// Elements per step along each axis of a dense row-major tensor of `shape`.
std::vector<int64_t> row_major_strides(const Shape &shape);
std::string shape_to_string(const Shape &shape);  // "1x3x227x227"

struct Value {
    std::string blob_name;  // Caffe's top name; several Values share it after in-place layers
    Shape shape;            // filled by shape inference
};

// Where a layer came from, for error messages.
struct SourceLocation {
    std::string file;
    int line = 0;  // 1-based; 0 when unknown
    std::string to_string() const;
};

struct Layer {
    std::string name;
    std::string type;          // Caffe's V2 type name: "Convolution", "ReLU", ...
    std::vector<int> inputs;   // Value ids
    std::vector<int> outputs;  // Value ids
    LayerParams params;
    std::vector<Shape> weight_shapes;  // shapes of the learned blobs, in Caffe's blob order
    SourceLocation location;
    std::vector<std::string> fused_layers;  // names of layers folded into this one by fusion
};

// One layer's learned blobs, in Caffe's blob order.
struct LayerWeights {
    std::string layer;
    std::vector<Shape> shapes;
    std::vector<std::vector<float>> blobs;
};

struct Graph {
    std::string name;
    std::vector<Value> values;
    std::vector<Layer> layers;  // in execution order
    std::vector<int> inputs;    // Value ids fed by the caller
    std::vector<int> outputs;   // Value ids nobody consumes
    // Weights that came with the model (ONNX initializers); null for a prototxt, whose weights
    // come from a caffemodel or the fillers. Shared: graphs are copied, weights are large.
    std::shared_ptr<const std::vector<LayerWeights>> weights;

    int add_value(const std::string &blob_name, Shape shape = {});
    // Value ids consumed by at least one layer.
    std::vector<bool> consumed() const;
    // Removes the layers marked `gone` (by index), keeping the others' order.
    void drop_layers(const std::vector<bool> &gone);
};

}  // namespace cortado
