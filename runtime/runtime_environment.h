// Environment variables the network runtime sets for Halide's GPU runtimes (the CUDA register
// cap, OpenCL build options). Each has a shadow variable holding the value we set, so a value
// the user exported, before or after us, is told from ours and left alone: every network
// library carries its own copy of this runtime, so no static state could tell them apart.
#pragma once

namespace cortado {

// Whether `name` holds a value that is not the one recorded in `shadow`: the user's.
bool set_by_user(const char *name, const char *shadow);

// Sets `name` to `value` and records it in `shadow`.
void set_ours(const char *name, const char *shadow, const char *value);

}  // namespace cortado
