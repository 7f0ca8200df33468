// caffe::LayerParameter -> the typed LayerParams of its type, with Caffe's defaults and the
// checks that need no shapes (kernel given, strides positive, ...).
#pragma once

#include "frontend/caffe.pb.h"
#include "frontend/graph.h"

namespace cortado {

// Throws CompileError naming `where` and the layer.
LayerParams convert_layer_params(const caffe::LayerParameter &proto, const SourceLocation &where);

// `given`: the prototxt wrote this filler (absent ones are Caffe's constant 0).
Filler convert_filler(const caffe::FillerParameter &proto, bool given);

}  // namespace cortado
