// The frontend in one call: prototxt -> graph with shapes (and, when asked, fused).
#pragma once

#include "frontend/import_caffe.h"

namespace cortado {

Graph load_network(const std::string &prototxt_path, const ImportOptions &options, bool fuse);

}  // namespace cortado
