// Large host allocations backed by transparent huge pages where the kernel offers them
// (`madvise` mode, the common default): the arena of activations and the kernels' scratch blocks
// (a Winograd layer's transformed input and products, a hundred MiB at batch 20) are walked with
// strides of whole channel planes, and with 4 KiB pages every plane is a TLB miss.
#pragma once

#include <cstddef>

namespace cortado {

// Like std::aligned_alloc(alignment, bytes) (alignment at most 2 MiB); blocks of 2 MiB or more
// are 2 MiB-aligned and advised as huge pages before anything touches them. Free with std::free.
void *allocate_large(size_t alignment, size_t bytes);

}  // namespace cortado
