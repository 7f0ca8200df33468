#include "frontend/load_network.h"

#include "frontend/compile_error.h"
#include "frontend/fusion.h"
#include "frontend/import_onnx.h"
#include "frontend/shape_inference.h"
#include "runtime/file_bytes.h"

namespace cortado {

Graph load_network(const std::string &path, const ImportOptions &options, bool fuse) {
    // The file's content, not its name, says which frontend reads it.
    std::string bytes, error;
    if (!read_file_bytes(path, &bytes, &error)) throw CompileError(error);
    Graph graph =
        looks_like_onnx(bytes) ? import_onnx_model(bytes, path, options) : import_caffe_prototxt(path, options);
    infer_shapes(graph);
    if (fuse) fuse_activations(graph);
    return graph;
}

}  // namespace cortado
