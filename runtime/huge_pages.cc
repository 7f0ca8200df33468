#include "runtime/huge_pages.h"

#include <cstdlib>

#include <sys/mman.h>

namespace cortado {

namespace {

constexpr size_t kHugePageBytes = size_t(2) << 20;

size_t round_up(size_t bytes, size_t multiple) { return (bytes + multiple - 1) / multiple * multiple; }

}  // namespace

void *allocate_large(size_t alignment, size_t bytes) {
    if (bytes < kHugePageBytes) return std::aligned_alloc(alignment, round_up(bytes, alignment));
    const size_t rounded = round_up(bytes, kHugePageBytes);
    void *block = std::aligned_alloc(kHugePageBytes, rounded);
    // Advice only: where the kernel has huge pages off, the block is an ordinary one.
    if (block) madvise(block, rounded, MADV_HUGEPAGE);
    return block;
}

}  // namespace cortado
