// A compiled network loaded with dlopen, called through its emitted C API. This is how
// `cortado run` and the end-to-end tests exercise exactly what a user links.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cortado {

class LoadedNetwork {
  public:
    // Throws CompileError when the library or one of NAME_* is missing.
    LoadedNetwork(const std::string &shared_library, const std::string &name);
    ~LoadedNetwork();
    LoadedNetwork(const LoadedNetwork &) = delete;
    LoadedNetwork &operator=(const LoadedNetwork &) = delete;

    // Throws CompileError with NAME_last_error() on failure.
    void create(const char *weights_path, uint64_t seed);
    void forward(const float *input, float *output);
    void forward_batch(int images, const float *input, float *output);  // NAME_forward_batch

    std::vector<int64_t> input_shape() const;
    std::vector<int64_t> output_shape() const;
    int layer_count() const;
    std::string layer_name(int layer) const;
    void set_profiling(bool enabled);
    double layer_time_ms(int layer) const;
    std::string launch_mode() const;  // NAME_launch_mode
    using BlobCallback = void (*)(void *user, const char *blob, int rank, const int64_t *shape, const float *data);
    void set_blob_callback(BlobCallback callback, void *user);

  private:
    void *symbol(const std::string &suffix) const;
    void *library_ = nullptr;
    void *context_ = nullptr;
    std::string name_;
};

}  // namespace cortado
