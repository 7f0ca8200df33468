// Places activation tensors in one arena. Tensors that alias (Split, Flatten, Reshape,
// Dropout) share storage; storage whose lifetimes do not overlap shares bytes. Greedy
// first-fit, largest first, offsets aligned to `align_floats`.
#pragma once

#include <cstdint>
#include <vector>

namespace cortado {

struct StorageRequest {
    int64_t floats;
    int first_step;  // step that writes it (-1 for the network input)
    int last_step;   // last step that reads it (step count for the network output)
};

// Returns one offset (in floats) per request; *arena_floats gets the total size.
std::vector<int64_t> place_storage(const std::vector<StorageRequest> &requests, int64_t *arena_floats,
                                   int64_t align_floats = 16);

}  // namespace cortado
