// Learned blobs on the tool side: made from the prototxt's fillers (the same stream the runtime
// makes for NAME_create(NULL, seed)), read from a .caffemodel, and turned into the reference
// interpreter's double tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/reference/reference_interpreter.h"
#include "frontend/caffemodel_writer.h"

namespace cortado {

std::vector<LayerWeights> seeded_weights(const NetworkPlan &plan, uint64_t seed);

// The blobs of every layer of `graph` that has weights, by name; throws CompileError naming the
// layer when the file lacks it.
std::vector<LayerWeights> read_weights(const Graph &graph, const std::string &path);

reference::WeightMap reference_weights(const std::vector<LayerWeights> &weights);

}  // namespace cortado
