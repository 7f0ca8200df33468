// Fuses a ReLU into the Convolution or InnerProduct before it, when the ReLU works in place
// (Caffe's usual `top == bottom`) and is the only reader of that output, so no blob a user can
// observe disappears.
#pragma once

#include "frontend/graph.h"

namespace cortado {

void fuse_activations(Graph &graph);

}  // namespace cortado
