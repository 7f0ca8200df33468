// What a layer costs, for `cortado info` and the benchmarks: floating-point operations (a
// multiply-add counts 2), learned parameters, and the minimal bytes it must move.
#pragma once

#include "frontend/graph.h"

namespace cortado {

struct LayerCost {
    int64_t flops = 0;
    int64_t parameters = 0;
    int64_t bytes = 0;  // inputs + weights + outputs, float32, each read or written once
    double arithmetic_intensity() const { return bytes ? double(flops) / double(bytes) : 0.0; }
};

LayerCost layer_cost(const Graph &graph, const Layer &layer);

}  // namespace cortado
