#include "runtime/opencl_buffer_pool.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

#include "HalideRuntime.h"

// The OpenCL types and entry points this file uses, declared here: the network runtime builds
// without OpenCL headers, for every target.
namespace {
using ClContext = struct _cl_context *;
using ClQueue = struct _cl_command_queue *;
using ClMem = struct _cl_mem *;
using ClInt = int32_t;
constexpr uint64_t kClMemReadWrite = 1;
using CreateBuffer = ClMem (*)(ClContext, uint64_t flags, size_t size, void *host, ClInt *error);
using ReleaseMemObject = ClInt (*)(ClMem);
}  // namespace

// Halide's OpenCL runtime, weak here so that libraries for other targets, which link no OpenCL
// runtime, still link.
extern "C" {
__attribute__((weak)) int halide_acquire_cl_context(void *user_context, ClContext *ctx, ClQueue *queue, bool create);
__attribute__((weak)) int halide_release_cl_context(void *user_context);
__attribute__((weak)) void *halide_opencl_get_symbol(void *user_context, const char *name);
__attribute__((weak)) int halide_opencl_compute_capability(void *user_context, int *major, int *minor);
__attribute__((weak)) int halide_opencl_wrap_cl_mem(void *user_context, halide_buffer_t *buf, uint64_t mem);
__attribute__((weak)) int halide_opencl_detach_cl_mem(void *user_context, halide_buffer_t *buf);
__attribute__((weak)) uintptr_t halide_opencl_get_cl_mem(void *user_context, halide_buffer_t *buf);
}

namespace cortado {
namespace {

struct PooledBuffer {
    ClQueue queue;
    size_t bytes;
    ClMem mem;
};

// Enough for every intermediate of the largest kernels of a network's steady state, a few
// networks at once; the least recently freed go first beyond it.
constexpr size_t kPoolCapacity = 32;

std::mutex pool_mutex;
std::deque<PooledBuffer> pool;  // most recently freed last

void release(void *user_context, ClMem mem) {
    if (!halide_opencl_get_symbol) return;
    if (auto release_mem = reinterpret_cast<ReleaseMemObject>(halide_opencl_get_symbol(user_context, "clReleaseMemObject")))
        release_mem(mem);
}

ClMem take(ClQueue queue, size_t bytes) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    for (auto it = pool.rbegin(); it != pool.rend(); ++it) {
        if (it->queue != queue || it->bytes != bytes) continue;
        const ClMem mem = it->mem;
        pool.erase(std::next(it).base());
        return mem;
    }
    return nullptr;
}

// The current context's queue, or null (with no context yet, nothing can be pooled). With
// `create`, a first call makes Halide load the OpenCL library and create its context: its own
// functions do that on first use, and halide_opencl_compute_capability is the public one that
// does nothing else (it reads the device's version).
ClQueue current_queue(void *user_context, ClContext *context, bool create) {
    ClContext ctx = nullptr;
    ClQueue queue = nullptr;
    if (halide_acquire_cl_context(user_context, &ctx, &queue, false) != 0) return nullptr;
    halide_release_cl_context(user_context);
    if (!ctx && create) {
        int major = 0, minor = 0;
        if (halide_opencl_compute_capability(user_context, &major, &minor) != 0) return nullptr;
        if (halide_acquire_cl_context(user_context, &ctx, &queue, false) != 0) return nullptr;
        halide_release_cl_context(user_context);
    }
    if (context) *context = ctx;
    return ctx ? queue : nullptr;
}

}  // namespace

void release_opencl_buffer_pool() {
    std::deque<PooledBuffer> released;
    {
        std::lock_guard<std::mutex> lock(pool_mutex);
        released.swap(pool);
    }
    for (const PooledBuffer &b : released) release(nullptr, b.mem);
}

int opencl_buffer_pool_size() {
    std::lock_guard<std::mutex> lock(pool_mutex);
    return int(pool.size());
}

}  // namespace cortado

// Replace the weak definitions of Halide's OpenCL runtime (opencl_buffer_pool.h says why). Same
// contract: a buffer that already has device memory keeps it; an error code from OpenCL or
// Halide otherwise.
extern "C" int halide_opencl_device_malloc(void *user_context, halide_buffer_t *buf) {
    using namespace cortado;
    if (buf->device) return 0;
    const size_t bytes = buf->size_in_bytes();
    if (bytes == 0) return halide_error_code_device_malloc_failed;
    ClContext context = nullptr;
    const ClQueue queue = current_queue(user_context, &context, true);
    if (!queue) return halide_error_code_device_malloc_failed;
    ClMem mem = take(queue, bytes);
    if (!mem) {
        auto create = reinterpret_cast<CreateBuffer>(halide_opencl_get_symbol(user_context, "clCreateBuffer"));
        if (!create) return halide_error_code_device_malloc_failed;
        ClInt error = 0;
        mem = create(context, kClMemReadWrite, bytes, nullptr, &error);
        if (error != 0 || !mem) return error != 0 ? error : halide_error_code_device_malloc_failed;
    }
    const int result = halide_opencl_wrap_cl_mem(user_context, buf, reinterpret_cast<uint64_t>(mem));
    if (result != 0) release(user_context, mem);
    return result;
}

extern "C" int halide_opencl_device_free(void *user_context, halide_buffer_t *buf) {
    using namespace cortado;
    if (!buf->device) return 0;
    const ClMem mem = reinterpret_cast<ClMem>(halide_opencl_get_cl_mem(user_context, buf));
    const size_t bytes = buf->size_in_bytes();
    const int result = halide_opencl_detach_cl_mem(user_context, buf);
    if (result != 0) return result;
    const ClQueue queue = current_queue(user_context, nullptr, false);
    if (!queue) {
        release(user_context, mem);
        return 0;
    }
    PooledBuffer evicted{nullptr, 0, nullptr};
    {
        std::lock_guard<std::mutex> lock(pool_mutex);
        pool.push_back({queue, bytes, mem});
        if (pool.size() > kPoolCapacity) {
            evicted = pool.front();
            pool.pop_front();
        }
    }
    if (evicted.mem) release(user_context, evicted.mem);
    return 0;
}
