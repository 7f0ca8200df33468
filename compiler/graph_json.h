// A network graph as JSON (`cortado info --json`): every layer with its type, parameters,
// bottoms and tops as value ids (in-place layers make new values, so ids are unambiguous where
// Caffe's blob names repeat), top shapes, learned-blob shapes and cost. Complete enough for
// another framework to rebuild the network, as tools/bench/gpu_bench.py does for PyTorch. Floats are
// written with enough digits to read back exactly, and graph_from_json reads it back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "frontend/graph.h"

namespace cortado {

nlohmann::ordered_json graph_json(const Graph &graph);

// graph_json as indented text.
std::string graph_json_text(const Graph &graph);

// The graph that graph_json wrote, as it was (source locations aside), so that a graph travels
// to another machine (the tuner's bundles, compiler/tuner/bundles.h). Throws CompileError
// naming what is missing or wrong.
Graph graph_from_json(const nlohmann::json &json);

}  // namespace cortado
