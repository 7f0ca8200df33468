// Halide 21's CUDA runtime loads every kernel with at most 64 registers per thread unless
// $HL_CUDA_JIT_MAX_REGISTERS says otherwise (it reads the variable each time it loads a
// kernel); kernels scheduled for more would spill (docs/PERFORMANCE.md, session 5).
#pragma once

namespace cortado {

// Called when a CUDA network is created, with the registers per thread its kernels were
// scheduled for (the target's registers_per_thread), before any of them loads. Sets the
// variable unless the user had set it, and only ever raises it, so that no network's kernels
// load under less than they were scheduled for. `registers` <= 0 does nothing. Safe to call
// from several threads; the process environment is changed at creation, never during forwards.
void raise_cuda_register_cap(int registers);

}  // namespace cortado
