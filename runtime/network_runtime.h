// The engine behind every emitted `NAME_*` function. One Network per context; a context is
// used by one thread at a time, and different contexts share nothing mutable.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/network_description.h"

namespace cortado {

struct Network;

using BlobCallback = void (*)(void *user, const char *blob, int rank, const int64_t *shape, const float *data);

// Null on failure; the reason is in last_error() on this thread.
Network *network_create(const NetworkDescription *description, const char *weights_path, uint64_t filler_seed);
// The same with the bytes of a caffemodel linked into the library (`cortado compile --embed-weights`).
Network *network_create_embedded(const NetworkDescription *description, const uint8_t *bytes, size_t size);
void network_destroy(Network *network);
// 0 on success; non-zero with last_error() set otherwise.
int network_forward(Network *network, const float *input, float *output);
// The first `images` images of the compiled batch (1 <= images <= it): the whole batch runs as
// network_forward does; fewer run one by one through the description's single_image network,
// created with the same weights on first use, so the time scales with `images`, except where
// the last whole-batch forward took less than that would (then the whole batch runs, padded with
// zeros). The blob callback and profiling follow network_forward alone.
int network_forward_batch(Network *network, int images, const float *input, float *output);
// How forwards run: "kernel by kernel", or on CUDA "one CUDA graph" (captured on the second
// forward without blob callback or profiling, runtime/cuda_graph.h), or why not. The text stays
// valid until the context's next forward or destroy.
const char *network_launch_mode(const Network *network);
void network_set_profiling(Network *network, int enabled);
void network_set_blob_callback(Network *network, BlobCallback callback, void *user);
// Milliseconds spent in step `step` during the last profiled forward.
double network_step_time_ms(const Network *network, int step);

// Copies the shape into dims (kMaxRank entries) and returns the rank.
int tensor_shape(const NetworkDescription *description, int tensor, int64_t *dims);

const char *last_error();
void set_last_error(const char *message);

}  // namespace cortado
