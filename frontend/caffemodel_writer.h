// Writes learned blobs as a binary .caffemodel (V2 NetParameter, `shape`d BlobProtos), the
// layout Caffe itself writes, so the file loads in Caffe as well as in cortado.
#pragma once

#include <string>
#include <vector>

#include "frontend/graph.h"

namespace cortado {

// Throws CompileError when the file cannot be written.
void write_caffemodel(const std::string &path, const std::string &net_name, const std::vector<LayerWeights> &layers);

}  // namespace cortado
