// The frontend in one call: a Caffe prototxt or an ONNX model (told apart by content) -> graph
// with shapes (and, when asked, fused).
#pragma once

#include "frontend/import_caffe.h"

namespace cortado {

Graph load_network(const std::string &path, const ImportOptions &options, bool fuse);

}  // namespace cortado
