// Halide 21's OpenCL runtime hands extra options to the driver's compiler when it builds a
// pipeline's kernels (lazily, on the pipeline's first run): those given to
// halide_opencl_set_build_options, else $HL_OCL_BUILD_OPTIONS, which it reads once, when it
// builds its first kernel, and keeps. NVIDIA's compiler keeps kernels
// under a register cap of its own unless -cl-nv-maxrregcount raises it; tiles scheduled for
// more registers then run slower (docs/PERFORMANCE.md, GPU convolution variants). The network
// runtime links no OpenCL code, so it sets the variable.
#pragma once

namespace cortado {

// Called when an OpenCL network is created, with its target description's
// opencl_build_options, before any of its kernels is built. Sets $HL_OCL_BUILD_OPTIONS unless
// the user set it (runtime/runtime_environment.h). A later network's options replace an earlier
// one's in the variable, but they take effect only where that Halide runtime has built no kernel
// yet (each network library links its own copy of it); networks sharing a process should share
// options. As with the CUDA register cap (runtime/cuda_register_cap.h), the options apply to
// every Halide OpenCL kernel the process builds afterwards, and setenv is not safe against a
// concurrent getenv. Null or empty `options` does nothing.
void set_opencl_build_options(const char *options);

}  // namespace cortado
