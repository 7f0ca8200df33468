// Reads a Caffe .prototxt (V2 `layer` or legacy V1 `layers`, deploy or train_val) into the graph
// IR for inference: TEST-phase rules applied, data layers turned into inputs, training-only
// layers dropped, in-place tops renamed into SSA values. Shapes are left to shape inference.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "frontend/graph.h"

namespace cortado {

struct ImportOptions {
    Shape input_shape;  // replaces the single input's shape; required for data-layer nets
    int64_t batch = 0;  // when > 0, replaces dimension 0 of every input
    // Convolutions to run in int8, by layer name, with their inputs' quantization
    // (frontend/int8_precision.h); empty: every layer in fp32. `int8_source` names the file.
    std::map<std::string, Int8Input> int8_layers;
    std::string int8_source;
    // int8 as a quantized model says (frontend/int8_precision.h apply_model_int8_precision), where
    // no .qparams file is given; `int8_refusal` says why the target cannot run a convolution in
    // int8 (compiler/int8_support.h; empty: it can), unset: every one it takes.
    bool int8_from_model = false;
    std::function<std::string(const Graph &, const Layer &)> int8_refusal;
    // The levels int8 weights quantize to where the model does not give them as int8: the
    // target's (compiler/int8_support.h int8_weight_levels).
    int int8_weight_levels = 127;
    // Every convolution the target can run in half precision does (frontend/fp16_precision.h);
    // `fp16_refusal` says why the target cannot run one (compiler/int8_support.h), unset: none.
    bool fp16 = false;
    std::function<std::string(const Graph &, const Layer &)> fp16_refusal;
};

// Throws CompileError naming file:line and the layer.
Graph import_caffe_prototxt(const std::string &path, const ImportOptions &options);
Graph import_caffe_prototxt_text(const std::string &text, const std::string &display_path,
                                 const ImportOptions &options);

}  // namespace cortado
