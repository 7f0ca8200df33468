// Halide 21's CUDA runtime loads every kernel with at most 64 registers per thread unless
// $HL_CUDA_JIT_MAX_REGISTERS says otherwise (it reads the variable each time it loads a
// kernel, lazily, on a pipeline's first run); kernels scheduled for more would spill
// (docs/PERFORMANCE.md, Halide's 64-register cap on CUDA). That variable is Halide 21's only way
// to raise the cap.
#pragma once

namespace cortado {

// Called when a CUDA network is created, with the registers per thread its kernels were
// scheduled for, before any of them loads. Sets $HL_CUDA_JIT_MAX_REGISTERS unless the user set
// it, and only ever raises it, so that no network's kernels load under less than they were
// scheduled for. Our own settings are told from the user's by a second variable,
// $CORTADO_CUDA_JIT_MAX_REGISTERS, holding the value we set: every network library carries its
// own copy of this runtime, so no static state could tell them apart. `registers` <= 0 does
// nothing.
//
// Caveats, as with any change to the environment: the cap applies to every Halide CUDA kernel
// the process loads afterwards, cortado's or not; and setenv is not safe against a concurrent
// getenv, so create networks before other threads run their first forward (a network's kernels
// load on its first forward), or export the variable yourself.
void raise_cuda_register_cap(int registers);

}  // namespace cortado
