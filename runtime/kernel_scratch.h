// Scratch memory for the compiled kernels. Halide asks halide_malloc for every parallel task's
// tiles (a GEMM's accumulator and packed panels, some hundred KiB), many times per call; glibc
// serves blocks that size from fresh pages (mmap, or a heap top it trims again on free), and
// the page faults then cost more than the arithmetic. This allocator keeps freed blocks for
// reuse, so that a network in its steady state allocates nothing. The network runtime installs
// it with halide_set_custom_malloc / halide_set_custom_free when a network is created.
#pragma once

#include <cstddef>

namespace cortado {

void *kernel_scratch_malloc(void *user_context, size_t bytes);
void kernel_scratch_free(void *user_context, void *block);

}  // namespace cortado
