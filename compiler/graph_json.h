// A network graph as JSON (`cortado info --json`): every layer with its type, parameters,
// bottoms and tops as value ids (in-place layers make new values, so ids are unambiguous where
// Caffe's blob names repeat), top shapes, learned-blob shapes and cost. Complete enough for
// another framework to rebuild the network, as tools/bench/gpu_bench.py does for PyTorch. Floats are
// written with enough digits to read back exactly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "frontend/graph.h"

namespace cortado {

nlohmann::ordered_json graph_json(const Graph &graph);

// graph_json as indented text.
std::string graph_json_text(const Graph &graph);

}  // namespace cortado
