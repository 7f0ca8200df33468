// Device buffers kept for reuse on OpenCL. A kernel with intermediate stages computed on their
// own (Winograd's transformed input and products, split-K partial sums, a padded input) has
// Halide allocate each stage's device buffer when it runs and free it when it returns. Halide
// 21's CUDA runtime keeps freed buffers for reuse by default; its OpenCL runtime calls
// clCreateBuffer and clReleaseMemObject every time, which on NVIDIA's driver cost about 0.25 ms
// per intermediate per call (docs/PERFORMANCE.md, GPU Winograd), more than most kernels take.
//
// opencl_buffer_pool.cc therefore defines halide_opencl_device_malloc and
// halide_opencl_device_free, which Halide's runtime declares weak so that an application may
// replace them: a freed buffer goes back to a small pool (at most 32 buffers and 1 GiB, emptied
// when an allocation fails or Halide is told to stop reusing device allocations), keyed by the
// command queue it was used on and its size, and the next request for that size on that queue
// takes it. One queue runs its commands in order (Halide's own queue does; an application that
// supplies an out-of-order one must not use the pool), so a buffer taken again is written only
// after the commands that read it before. Everything else (wrapping a cl_mem into a halide_buffer_t, contexts, loading
// the OpenCL library) goes through Halide's own runtime functions.
//
// A buffer is pooled when its owner frees it, so no crop of it may outlive that (Halide's
// pipelines release their crops first, and so does the network runtime); a crop passed to the
// free only drops its reference. Pooled buffers belong to the context they were made in: an application that releases Halide's
// OpenCL context (halide_device_release) should destroy its networks first, which empties the
// pool. The definitions are linked into every network library; on non-OpenCL targets nothing
// calls them. The network runtime calls release_opencl_buffer_pool() when a network is destroyed,
// which also makes a static link keep this file's definitions.
#pragma once

namespace cortado {

// Releases every pooled buffer (those in use stay with their owners).
void release_opencl_buffer_pool();

// Buffers in the pool now, for the tests.
int opencl_buffer_pool_size();

}  // namespace cortado
