#include "frontend/load_network.h"

#include "frontend/fusion.h"
#include "frontend/shape_inference.h"

namespace cortado {

Graph load_network(const std::string &prototxt_path, const ImportOptions &options, bool fuse) {
    Graph graph = import_caffe_prototxt(prototxt_path, options);
    infer_shapes(graph);
    if (fuse) fuse_activations(graph);
    return graph;
}

}  // namespace cortado
