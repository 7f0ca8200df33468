// Folds a BatchNorm or Scale that follows a Convolution or InnerProduct into the product's
// weights and bias (applied to the blobs when the network is created, before any packing), so
// no kernel runs for it: ResNet's conv -> BatchNorm -> Scale becomes one convolution. The
// affine must be the product's only reader and per output channel (axis 1). Its output blob
// becomes the product's; the product's own output blob is no longer written, unless
// --no-fusion keeps every layer. A Scale after a BatchNorm that follows no product joins the
// BatchNorm's own map instead (DenseNet's BN -> Scale before each convolution): one per-channel
// affine kernel for both.
#pragma once

#include "frontend/graph.h"

namespace cortado {

void fold_affines(Graph &graph);

// The BatchNorm or Scale `layer` as a fold, when it is one per channel of axis 1 of its only
// input; false for any other layer.
bool as_fold(const Graph &graph, const Layer &layer, FoldedAffine *fold);

}  // namespace cortado
