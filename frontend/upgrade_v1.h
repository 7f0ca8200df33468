// Legacy V1 `layers { type: CONVOLUTION ... }` entries, rewritten as V2 layers. The V1 fields
// that only matter for training (blobs_lr, weight_decay, param names) are dropped.
#pragma once

#include "frontend/caffe.pb.h"
#include "frontend/graph.h"

namespace cortado {

// Throws CompileError at `where` for a V1 type cortado has no V2 name for.
caffe::LayerParameter upgrade_v1_layer(const caffe::V1LayerParameter &v1, const SourceLocation &where);

}  // namespace cortado
