// What the compiled kernels run with, wherever they are loaded: the scratch allocator
// (kernel_scratch.h) and the thread pool (parallel_for.h), installed into the Halide runtime
// that a network library, or a single kernel's library, links. The setters are that runtime's
// halide_set_custom_malloc / _free / _do_par_for, linked or looked up with dlsym.
#pragma once

#include <HalideRuntime.h>

#include "runtime/kernel_scratch.h"
#include "runtime/parallel_for.h"

namespace cortado {

inline void install_kernel_hooks(halide_malloc_t (*set_malloc)(halide_malloc_t),
                                 halide_free_t (*set_free)(halide_free_t),
                                 halide_do_par_for_t (*set_do_par_for)(halide_do_par_for_t)) {
    set_malloc(kernel_scratch_malloc);
    set_free(kernel_scratch_free);
    set_do_par_for(parallel_for);
}

}  // namespace cortado
