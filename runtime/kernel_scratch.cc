#include "runtime/kernel_scratch.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "runtime/huge_pages.h"

namespace cortado {

namespace {

// Halide's own halide_malloc alignment, and the header in front of every block that records
// its capacity (the header keeps the block after it aligned).
constexpr size_t kAlignment = 128;
// Blocks kept for reuse: enough for every task buffer of a layer on a few dozen threads.
constexpr size_t kCachedBlocks = 64;

struct Cache {
    std::mutex mutex;
    std::vector<void *> blocks;  // freed, as returned by aligned_alloc

    ~Cache() {
        for (void *b : blocks) std::free(b);
    }
};

Cache &cache() {
    static Cache c;
    return c;
}

size_t &capacity_of(void *raw) { return *static_cast<size_t *>(raw); }

}  // namespace

void *kernel_scratch_malloc(void *, size_t bytes) {
    const size_t needed = (bytes + kAlignment + 4095) / 4096 * 4096;
    Cache &c = cache();
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        // The smallest cached block that fits.
        size_t best = c.blocks.size();
        for (size_t i = 0; i < c.blocks.size(); i++)
            if (capacity_of(c.blocks[i]) >= needed &&
                (best == c.blocks.size() || capacity_of(c.blocks[i]) < capacity_of(c.blocks[best])))
                best = i;
        if (best < c.blocks.size()) {
            void *raw = c.blocks[best];
            c.blocks[best] = c.blocks.back();
            c.blocks.pop_back();
            return static_cast<uint8_t *>(raw) + kAlignment;
        }
    }
    void *raw = allocate_large(kAlignment, needed);
    if (!raw) return nullptr;
    capacity_of(raw) = needed;
    return static_cast<uint8_t *>(raw) + kAlignment;
}

void kernel_scratch_free(void *, void *block) {
    if (!block) return;
    void *raw = static_cast<uint8_t *>(block) - kAlignment;
    Cache &c = cache();
    {
        std::lock_guard<std::mutex> lock(c.mutex);
        if (c.blocks.size() < kCachedBlocks) {
            c.blocks.push_back(raw);
            return;
        }
    }
    std::free(raw);
}

}  // namespace cortado
