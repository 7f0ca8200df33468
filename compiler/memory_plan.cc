#include "compiler/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace cortado {

std::vector<int64_t> place_storage(const std::vector<StorageRequest> &requests, int64_t *arena_floats,
                                   int64_t align_floats) {
    const int64_t kAlignFloats = align_floats;
    std::vector<int> order(requests.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return requests[a].floats > requests[b].floats; });

    std::vector<int64_t> offsets(requests.size(), 0);
    std::vector<int> placed;
    *arena_floats = 0;
    for (int r : order) {
        const StorageRequest &req = requests[r];
        const int64_t size = (req.floats + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
        // Busy ranges of already placed storage whose lifetime overlaps this one.
        std::vector<std::pair<int64_t, int64_t>> busy;
        for (int p : placed) {
            const StorageRequest &other = requests[p];
            if (other.last_step < req.first_step || req.last_step < other.first_step) continue;
            const int64_t other_size = (other.floats + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
            busy.emplace_back(offsets[p], offsets[p] + other_size);
        }
        std::sort(busy.begin(), busy.end());
        int64_t offset = 0;
        for (const auto &[begin, end] : busy) {
            if (offset + size <= begin) break;
            offset = std::max(offset, end);
        }
        offsets[r] = offset;
        placed.push_back(r);
        *arena_floats = std::max(*arena_floats, offset + size);
    }
    return offsets;
}

}  // namespace cortado
