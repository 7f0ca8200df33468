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
constexpr uint32_t kClMemSize = 0x1102;
using CreateBuffer = ClMem (*)(ClContext, uint64_t flags, size_t size, void *host, ClInt *error);
using ReleaseMemObject = ClInt (*)(ClMem);
using GetMemObjectInfo = ClInt (*)(ClMem, uint32_t name, size_t size, void *value, size_t *size_returned);
}  // namespace

// Halide's OpenCL runtime, weak here so that libraries for other targets, which link no OpenCL
// runtime, still link.
extern "C" {
__attribute__((weak)) int halide_acquire_cl_context(void *user_context, ClContext *ctx, ClQueue *queue, bool create);
__attribute__((weak)) int halide_release_cl_context(void *user_context);
__attribute__((weak)) void *halide_opencl_get_symbol(void *user_context, const char *name);
__attribute__((weak)) int halide_opencl_compute_capability(void *user_context, int *major, int *minor);
__attribute__((weak)) void halide_register_device_allocation_pool(struct halide_device_allocation_pool *);
__attribute__((weak)) void halide_error(void *user_context, const char *message);
__attribute__((weak)) int halide_opencl_wrap_cl_mem(void *user_context, halide_buffer_t *buf, uint64_t mem);
__attribute__((weak)) int halide_opencl_detach_cl_mem(void *user_context, halide_buffer_t *buf);
__attribute__((weak)) uintptr_t halide_opencl_get_cl_mem(void *user_context, halide_buffer_t *buf);
__attribute__((weak)) uint64_t halide_opencl_get_crop_offset(void *user_context, halide_buffer_t *buf);
}

namespace cortado {
namespace {

struct PooledBuffer {
    ClQueue queue;
    size_t bytes;
    ClMem mem;
};

// Enough for every intermediate of the largest kernels of a network's steady state, a few
// networks at once; beyond either limit the least recently freed go first.
constexpr size_t kPoolCapacity = 32;
constexpr size_t kPoolBytes = size_t(1) << 30;

// Never destroyed: a network destroyed by a static destructor may still free into it.
std::mutex &pool_mutex() {
    static auto *mutex = new std::mutex;
    return *mutex;
}
std::deque<PooledBuffer> &pool() {  // most recently freed last
    static auto *buffers = new std::deque<PooledBuffer>;
    return *buffers;
}
size_t pooled_bytes = 0;  // guarded by pool_mutex()

void release(void *user_context, ClMem mem) {
    if (!halide_opencl_get_symbol) return;
    if (auto release_mem =
            reinterpret_cast<ReleaseMemObject>(halide_opencl_get_symbol(user_context, "clReleaseMemObject")))
        release_mem(mem);
}

// A property of `mem` of type `T`, or `fallback` if it cannot be read.
template <typename T>
T mem_info(void *user_context, ClMem mem, uint32_t name, T fallback) {
    auto info = reinterpret_cast<GetMemObjectInfo>(halide_opencl_get_symbol(user_context, "clGetMemObjectInfo"));
    T value = fallback;
    if (!info || info(mem, name, sizeof(T), &value, nullptr) != 0) return fallback;
    return value;
}

ClMem take(ClQueue queue, size_t bytes) {
    std::lock_guard<std::mutex> lock(pool_mutex());
    auto &buffers = pool();
    for (auto it = buffers.rbegin(); it != buffers.rend(); ++it) {
        if (it->queue != queue || it->bytes != bytes) continue;
        const ClMem mem = it->mem;
        pooled_bytes -= it->bytes;
        buffers.erase(std::next(it).base());
        return mem;
    }
    return nullptr;
}

int release_unused(void *) {
    cortado::release_opencl_buffer_pool();
    return 0;
}

// Halide empties registered pools when told to stop reusing device allocations
// (halide_reuse_device_allocations(false)).
void register_with_halide() {
    static halide_device_allocation_pool registration{release_unused, nullptr};
    static std::once_flag once;
    std::call_once(once, [] {
        if (halide_register_device_allocation_pool) halide_register_device_allocation_pool(&registration);
    });
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
        std::lock_guard<std::mutex> lock(pool_mutex());
        released.swap(pool());
        pooled_bytes = 0;
    }
    for (const PooledBuffer &b : released) release(nullptr, b.mem);
}

int opencl_buffer_pool_size() {
    std::lock_guard<std::mutex> lock(pool_mutex());
    return int(pool().size());
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
    register_with_halide();
    ClMem mem = take(queue, bytes);
    if (!mem) {
        auto create = reinterpret_cast<CreateBuffer>(halide_opencl_get_symbol(user_context, "clCreateBuffer"));
        if (!create) return halide_error_code_device_malloc_failed;
        ClInt error = 0;
        mem = create(context, kClMemReadWrite, bytes, nullptr, &error);
        if (error != 0 || !mem) {
            // Pooled buffers may hold the memory this one needs: give them back and try once more.
            release_opencl_buffer_pool();
            error = 0;
            mem = create(context, kClMemReadWrite, bytes, nullptr, &error);
        }
        if (error != 0 || !mem) {
            if (halide_error)
                halide_error(user_context, "OpenCL: clCreateBuffer failed, even with the buffer pool emptied");
            return error != 0 ? error : halide_error_code_device_malloc_failed;
        }
    }
    const int result = halide_opencl_wrap_cl_mem(user_context, buf, reinterpret_cast<uint64_t>(mem));
    if (result != 0) release(user_context, mem);
    return result;
}

extern "C" int halide_opencl_device_free(void *user_context, halide_buffer_t *buf) {
    using namespace cortado;
    if (!buf->device) return 0;
    const ClMem mem = reinterpret_cast<ClMem>(halide_opencl_get_cl_mem(user_context, buf));
    // A crop (Halide's own free refuses one) only drops its reference to its parent's memory.
    const bool crop = halide_opencl_get_crop_offset(user_context, buf) != 0;
    const size_t bytes = mem_info<size_t>(user_context, mem, kClMemSize, buf->size_in_bytes());
    const int result = halide_opencl_detach_cl_mem(user_context, buf);
    if (result != 0) return result;
    const ClQueue queue = current_queue(user_context, nullptr, false);
    if (!queue || crop || bytes == 0 || bytes > kPoolBytes) {
        release(user_context, mem);
        return 0;
    }
    std::deque<PooledBuffer> evicted;
    {
        std::lock_guard<std::mutex> lock(pool_mutex());
        auto &buffers = pool();
        buffers.push_back({queue, bytes, mem});
        pooled_bytes += bytes;
        while (buffers.size() > kPoolCapacity || pooled_bytes > kPoolBytes) {
            evicted.push_back(buffers.front());
            pooled_bytes -= buffers.front().bytes;
            buffers.pop_front();
        }
    }
    for (const PooledBuffer &b : evicted) release(user_context, b.mem);
    return 0;
}
