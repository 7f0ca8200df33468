#include "tests/fuzz/fuzz_targets.h"

#include <string>
#include <vector>

#include "compiler/emit_network.h"
#include "compiler/kernel_plan.h"
#include "compiler/qparams.h"
#include "frontend/compile_error.h"
#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/import_onnx.h"
#include "frontend/int8_precision.h"
#include "frontend/shape_inference.h"
#include "runtime/caffemodel_reader.h"
#include "frontend/npy.h"

namespace cortado::fuzz {

namespace {

// Imports with `import`, then runs everything after the frontend; bad input must end in a
// CompileError, the documented outcome.
template <typename Import>
void compile_without_building(const uint8_t *data, size_t size, Import import) {
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    try {
        Graph graph = import(bytes);
        infer_shapes(graph);
        fuse_layers(graph);  // as compile plans it: folds, fused activations, concatenations in place
        const NetworkPlan plan = plan_network(graph, "fuzz", "x86-64-linux-avx-avx2-fma");
        emit_header(plan);
        emit_glue(plan);
    } catch (const CompileError &) {}
}

}  // namespace

void prototxt_one_input(const uint8_t *data, size_t size) {
    compile_without_building(data, size, [](const std::string &text) {
        return import_caffe_prototxt_text(text, "fuzz.prototxt", ImportOptions{});
    });
}

void onnx_one_input(const uint8_t *data, size_t size) {
    compile_without_building(
        data, size, [](const std::string &bytes) { return import_onnx_model(bytes, "fuzz.onnx", ImportOptions{}); });
}

void caffemodel_one_input(const uint8_t *data, size_t size) {
    std::vector<LayerBlobs> layers;
    std::string error;
    if (!parse_caffemodel(data, size, &layers, &error) && error.empty()) __builtin_trap();
}

void npy_one_input(const uint8_t *data, size_t size) {
    std::vector<int64_t> shape;
    std::vector<float> values;
    std::string error;
    if (!parse_npy(data, size, &shape, &values, &error) && error.empty()) __builtin_trap();
}

void qparams_one_input(const uint8_t *data, size_t size) {
    // Two plain convolutions (one reading the other through a ReLU), a grouped and a depthwise one.
    static const char kNetwork[] = R"(name: "fuzz"
input: "data"
input_shape { dim: 2 dim: 8 dim: 9 dim: 9 }
layer { name: "a" type: "Convolution" bottom: "data" top: "a" convolution_param { num_output: 32 kernel_size: 3 } }
layer { name: "r" type: "ReLU" bottom: "a" top: "a" }
layer { name: "b" type: "Convolution" bottom: "a" top: "b"
  convolution_param { num_output: 32 kernel_size: 3 pad: 1 group: 2 } }
layer { name: "d" type: "Convolution" bottom: "b" top: "d" convolution_param { num_output: 32 kernel_size: 3 group: 32 } }
layer { name: "p" type: "Pooling" bottom: "d" top: "p" pooling_param { pool: MAX kernel_size: 2 } }
layer { name: "c" type: "Convolution" bottom: "p" top: "c" convolution_param { num_output: 16 kernel_size: 1 } }
)";
    compile_without_building(data, size, [](const std::string &text) {
        const QuantizationParams q = parse_qparams(text, "fuzz.qparams");
        Graph graph = import_caffe_prototxt_text(kNetwork, "fuzz.prototxt", ImportOptions{});
        infer_shapes(graph);
        apply_int8_precision(graph, int8_layers(q), "fuzz.qparams");
        return graph;
    });
}

}  // namespace cortado::fuzz
