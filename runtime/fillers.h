// Caffe's weight fillers (constant, gaussian, uniform, xavier, msra), with a generator that is
// the same on every platform, so `cortado run --seed S` and `NAME_create(NULL, S)` make the
// same weights everywhere. BatchNorm statistics have no filler in Caffe (they start at zero,
// which makes a meaningless network); cortado gives them plausible values instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/filler_spec.h"

namespace cortado {

// Parses Caffe's filler type names; false for names cortado does not implement.
bool filler_type_from_name(const std::string &name, FillerType *type);

// Fills `count` values for a blob of `shape` (fan-in/fan-out follow Caffe: count / shape[0] and
// count / shape[1]). The stream depends only on (seed, layer name, blob index).
std::vector<float> fill_blob(const FillerSpec &spec, const std::vector<int64_t> &shape, uint64_t seed,
                             const std::string &layer, int blob_index);

}  // namespace cortado
