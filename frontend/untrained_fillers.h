// Deploy prototxts carry no fillers: Caffe then fills every weight with the constant 0, so run
// without trained weights, each convolution and inner product would output its (zero) bias and
// every check against the reference would compare zeros with zeros. For runs without trained
// weights (the tests, the benchmarks, `cortado run` without --weights) the unset fillers become
// Xavier weights and small uniform biases; explicit fillers are left alone.
#pragma once

#include <string>
#include <vector>

#include "frontend/graph.h"

namespace cortado {

// Returns the names of the layers whose fillers were replaced.
std::vector<std::string> fill_untrained_weights(Graph &graph);

// One note for the layers fill_untrained_weights gave stand-ins ("" when none): the count and
// the first few names, not a line each.
std::string stand_in_weights_note(const std::vector<std::string> &layers);

}  // namespace cortado
