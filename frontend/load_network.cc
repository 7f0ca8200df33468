#include "frontend/load_network.h"

#include "frontend/compile_error.h"
#include "frontend/fp16_precision.h"
#include "frontend/fusion.h"
#include "frontend/import_onnx.h"
#include "frontend/int8_precision.h"
#include "frontend/shape_inference.h"
#include "runtime/file_bytes.h"

namespace cortado {

Graph load_network(const std::string &path, const ImportOptions &options, bool fuse) {
    // The file's content, not its name, says which frontend reads it.
    std::string bytes, error;
    if (!read_file_bytes(path, &bytes, &error)) throw CompileError(error);
    Graph graph = looks_like_onnx(bytes) ? import_onnx_model(bytes, path, options)
                                         : import_caffe_prototxt_text(bytes, path, options);
    infer_shapes(graph);
    // The model's own weights must fit the shapes the layers take, before anything is built.
    if (graph.weights)
        for (const LayerWeights &w : *graph.weights)
            for (const Layer &layer : graph.layers) {
                if (layer.name != w.layer) continue;
                if (w.shapes.size() != layer.weight_shapes.size())
                    throw CompileError(path + ": layer '" + layer.name + "' takes " +
                                       std::to_string(layer.weight_shapes.size()) + " weight blobs, the model gives " +
                                       std::to_string(w.shapes.size()));
                for (size_t b = 0; b < w.shapes.size(); b++)
                    if (element_count(w.shapes[b]) != element_count(layer.weight_shapes[b]))
                        throw CompileError(path + ": layer '" + layer.name + "' blob " + std::to_string(b) + " is " +
                                           shape_to_string(w.shapes[b]) + " in the model, but the layer takes " +
                                           shape_to_string(layer.weight_shapes[b]));
            }
    if (!options.int8_layers.empty())
        apply_int8_precision(graph, options.int8_layers, options.int8_source, options.int8_weight_levels);
    else if (options.int8_from_model)
        apply_model_int8_precision(graph, path, options.int8_refusal, options.int8_weight_levels);
    if (options.fp16) apply_fp16_precision(graph, path, options.fp16_refusal);
    if (fuse) fuse_layers(graph);
    return graph;
}

}  // namespace cortado
