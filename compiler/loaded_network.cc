#include "compiler/loaded_network.h"

#include <dlfcn.h>

#include "frontend/compile_error.h"

namespace cortado {

LoadedNetwork::LoadedNetwork(const std::string &shared_library, const std::string &name) : name_(name) {
    library_ = dlopen(shared_library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library_) throw CompileError(std::string("cannot load ") + shared_library + ": " + dlerror());
}

LoadedNetwork::~LoadedNetwork() {
    if (context_) reinterpret_cast<void (*)(void *)>(symbol("_destroy"))(context_);
    if (library_) dlclose(library_);
}

void *LoadedNetwork::symbol(const std::string &suffix) const {
    void *s = dlsym(library_, (name_ + suffix).c_str());
    if (!s) throw CompileError("network library lacks " + name_ + suffix);
    return s;
}

void LoadedNetwork::create(const char *weights_path, uint64_t seed) {
    auto create = reinterpret_cast<void *(*)(const char *, uint64_t)>(symbol("_create"));
    auto error = reinterpret_cast<const char *(*)()>(symbol("_last_error"));
    context_ = create(weights_path, seed);
    if (!context_) throw CompileError(error());
}

void LoadedNetwork::forward_batch(int images, const float *input, float *output) {
    auto forward = reinterpret_cast<int (*)(void *, int, const float *, float *)>(symbol("_forward_batch"));
    auto error = reinterpret_cast<const char *(*)()>(symbol("_last_error"));
    if (forward(context_, images, input, output) != 0) throw CompileError(error());
}

void LoadedNetwork::forward(const float *input, float *output) {
    auto forward = reinterpret_cast<int (*)(void *, const float *, float *)>(symbol("_forward"));
    auto error = reinterpret_cast<const char *(*)()>(symbol("_last_error"));
    if (forward(context_, input, output) != 0) throw CompileError(error());
}

std::vector<int64_t> LoadedNetwork::input_shape() const {
    int64_t dims[4];
    int rank = reinterpret_cast<int (*)(int64_t *)>(symbol("_input_shape"))(dims);
    return std::vector<int64_t>(dims, dims + rank);
}

std::vector<int64_t> LoadedNetwork::output_shape() const {
    int64_t dims[4];
    int rank = reinterpret_cast<int (*)(int64_t *)>(symbol("_output_shape"))(dims);
    return std::vector<int64_t>(dims, dims + rank);
}

int LoadedNetwork::layer_count() const { return reinterpret_cast<int (*)()>(symbol("_layer_count"))(); }

std::string LoadedNetwork::layer_name(int layer) const {
    const char *n = reinterpret_cast<const char *(*)(int)>(symbol("_layer_name"))(layer);
    return n ? n : "";
}

void LoadedNetwork::set_profiling(bool enabled) {
    reinterpret_cast<void (*)(void *, int)>(symbol("_set_profiling"))(context_, enabled ? 1 : 0);
}

double LoadedNetwork::layer_time_ms(int layer) const {
    return reinterpret_cast<double (*)(const void *, int)>(symbol("_layer_time_ms"))(context_, layer);
}

std::string LoadedNetwork::launch_mode() const {
    return reinterpret_cast<const char *(*)(const void *)>(symbol("_launch_mode"))(context_);
}

void LoadedNetwork::set_blob_callback(BlobCallback callback, void *user) {
    reinterpret_cast<void (*)(void *, BlobCallback, void *)>(symbol("_set_blob_callback"))(context_, callback, user);
}

}  // namespace cortado
