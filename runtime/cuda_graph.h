// A network's forward on CUDA, captured once as a CUDA graph and replayed: one launch per
// forward instead of one per kernel, each of which costs Halide's runtime and the driver some
// microseconds (most of a small network's time at batch 1).
//
// What capture needs from Halide 21's CUDA runtime, and how cuda_graph.cc provides it:
// - A stream that is not the legacy default stream (which cannot be captured): cortado installs
//   a get-stream handler (halide_set_cuda_get_stream) giving each thread its own stream, created
//   blocking, so that Halide's synchronous copies (the input's upload, the output's download, a
//   weight's first upload), which run on the legacy stream, still wait for its kernels and its
//   kernels for them.
// - Device memory the graph owns: a kernel with intermediate stages (Winograd's transforms,
//   split-K partial sums, a padded input) allocates them on each call and frees them on return.
//   cortado replaces Halide's weak halide_cuda_device_malloc / _free with the stream-ordered
//   allocator (cuMemAllocAsync / cuMemFreeAsync), so that under capture they become the graph's
//   own allocation and free nodes. Outside it they come from the device's default pool, kept from
//   being trimmed (its release threshold raised, for the whole process), allocated on the
//   thread's stream and freed on the legacy stream, after every thread's kernels. Devices without
//   memory pools get cuMemAlloc / cuMemFree and no graphs.
//
// A capture can fail (a kernel that would copy or synchronise while captured, a driver without
// graphs): the network then runs kernel by kernel and says why in its launch mode.
// Capturing while another thread's forward copies on the legacy stream would make either fail, so
// a capture takes exclusively a lock that every CUDA forward of this library holds shared (and
// waits for a later forward when it cannot).
#pragma once

#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>

struct halide_device_interface_t;

namespace cortado {

// Whether `device` is Halide's CUDA interface (false in libraries without the CUDA runtime).
bool is_cuda_device(const halide_device_interface_t *device);

// Installs cortado's stream handler in Halide's CUDA runtime (idempotent). Called when a CUDA
// network is created, before any of its kernels runs.
void use_cortado_cuda_streams();

// Held shared by every CUDA forward and destroy, exclusively by a capture (try_lock).
std::shared_mutex &cuda_capture_mutex();

struct CudaGraph;

// Runs `steps` (the forward's kernels, launched through Halide) under stream capture on this
// thread's stream and instantiates what they launched; nothing runs on the device. Null, with the
// reason in *why, if capture is off ($CORTADO_CUDA_GRAPHS=0), unsupported, or failed (then the
// steps' error, if any, is in *why too). The caller holds cuda_capture_mutex() exclusively.
CudaGraph *capture_cuda_graph(const std::function<int()> &steps, std::string *why);

// Launches the graph on this thread's stream; 0 or a CUDA error code (the message in *why).
int launch_cuda_graph(CudaGraph *graph, std::string *why);

void destroy_cuda_graph(CudaGraph *graph);

}  // namespace cortado
