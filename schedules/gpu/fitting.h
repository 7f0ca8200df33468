// Tile arithmetic the GPU schedules and their default rules share (no Halide).
#pragma once

#include <algorithm>

namespace cortado::schedules::gpu {

// A split factor never larger than the extent, so every tile is full and ShiftInwards never
// makes a producer read outside an unpadded input.
inline int fitting(int factor, int extent) { return std::max(1, std::min(factor, extent)); }

}  // namespace cortado::schedules::gpu
