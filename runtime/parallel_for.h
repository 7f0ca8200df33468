// The parallel loops of the compiled kernels (Halide's halide_do_par_for), on a pool whose
// workers spin for a short while after each loop before they sleep, as OpenMP runtimes do.
// Halide's own pool puts its workers to sleep almost at once, so every kernel call that follows
// a pause of some microseconds (the next iteration of a benchmark, the next request to a
// server) first waits for the workers to wake, which costs as much as a small layer. The
// network runtime installs it with halide_set_custom_do_par_for when a network is created.
#pragma once

#include <cstdint>

#include <HalideRuntime.h>

namespace cortado {

int parallel_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure);

}  // namespace cortado
