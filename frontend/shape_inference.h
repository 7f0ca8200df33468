// Infers every Value's shape and every layer's weight blob shapes, following Caffe's Reshape()
// of each layer. The one source of truth for shapes: later passes and generators only read them.
#pragma once

#include "frontend/graph.h"

namespace cortado {

// Throws CompileError naming the layer and its file:line.
void infer_shapes(Graph &graph);
// Only the layers from `first_layer` on, whose inputs' shapes are known already: for an importer
// that appends layers and needs shapes as it goes.
void infer_shapes(Graph &graph, size_t first_layer);

// Caffe's CanonicalAxisIndex: negative axes count from the end. Throws CompileError(context).
int canonical_axis(int axis, size_t rank, const std::string &context);

}  // namespace cortado
