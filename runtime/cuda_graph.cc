#include "runtime/cuda_graph.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "HalideRuntime.h"

// The driver's types and the few constants used, declared here: the network runtime builds
// without CUDA headers, for every target. Values as cuda.h (CUDA 11.2 and later) gives them.
namespace {
using CuContext = void *;
using CuStream = struct CUstream_st *;
using CuGraph = struct CUgraph_st *;
using CuGraphExec = struct CUgraphExec_st *;
using CuMemPool = struct CUmemPoolHandle_st *;
using CuDevicePtr = unsigned long long;
using CuDevice = int;
using CuResult = int;
constexpr unsigned kStreamBlocking = 0;          // CU_STREAM_DEFAULT
constexpr int kCaptureThreadLocal = 1;           // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
constexpr int kAttributeMemoryPools = 115;       // CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
constexpr int kPoolReleaseThreshold = 4;         // CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
constexpr CuResult kErrorNotSupported = 801;     // CUDA_ERROR_NOT_SUPPORTED
}  // namespace

// Halide's CUDA runtime, weak here so that libraries for other targets, which link none, still
// link.
extern "C" {
__attribute__((weak)) void *halide_cuda_get_symbol(void *user_context, const char *name);
__attribute__((weak)) int halide_cuda_acquire_context(void *user_context, CuContext *ctx, bool create);
__attribute__((weak)) int halide_cuda_release_context(void *user_context);
__attribute__((weak)) int halide_cuda_wrap_device_ptr(void *user_context, halide_buffer_t *buf, uint64_t ptr);
__attribute__((weak)) int halide_cuda_detach_device_ptr(void *user_context, halide_buffer_t *buf);
__attribute__((weak)) uintptr_t halide_cuda_get_device_ptr(void *user_context, halide_buffer_t *buf);
using HalideCudaGetStream = int (*)(void *, void *, void **);
__attribute__((weak)) HalideCudaGetStream halide_set_cuda_get_stream(HalideCudaGetStream handler);
__attribute__((weak)) void halide_error(void *user_context, const char *message);
__attribute__((weak)) const halide_device_interface_t *halide_cuda_device_interface();
}

namespace cortado {
namespace {

// The entry points this file calls, looked up through Halide (which loads libcuda) by their
// versioned names: the unversioned cuStreamBeginCapture is CUDA 10.0's, without a mode.
struct Driver {
    CuResult (*push)(CuContext) = nullptr;
    CuResult (*pop)(CuContext *) = nullptr;
    CuResult (*current_device)(CuDevice *) = nullptr;
    CuResult (*context_id)(CuContext, unsigned long long *) = nullptr;  // CUDA 12.0 and later
    CuResult (*device_attribute)(int *, int, CuDevice) = nullptr;
    CuResult (*create_stream)(CuStream *, unsigned) = nullptr;
    CuResult (*alloc)(CuDevicePtr *, size_t) = nullptr;
    CuResult (*free)(CuDevicePtr) = nullptr;
    CuResult (*alloc_async)(CuDevicePtr *, size_t, CuStream) = nullptr;
    CuResult (*free_async)(CuDevicePtr, CuStream) = nullptr;
    CuResult (*default_pool)(CuMemPool *, CuDevice) = nullptr;
    CuResult (*set_pool_attribute)(CuMemPool, int, void *) = nullptr;
    CuResult (*begin_capture)(CuStream, int) = nullptr;
    CuResult (*end_capture)(CuStream, CuGraph *) = nullptr;
    CuResult (*instantiate)(CuGraphExec *, CuGraph, unsigned long long) = nullptr;
    CuResult (*launch)(CuGraphExec, CuStream) = nullptr;
    CuResult (*destroy_exec)(CuGraphExec) = nullptr;
    CuResult (*destroy_graph)(CuGraph) = nullptr;
    CuResult (*graph_nodes)(CuGraph, void **, size_t *) = nullptr;
    CuResult (*error_name)(CuResult, const char **) = nullptr;
    bool basics = false;  // contexts, streams and plain allocation
    bool graphs = false;  // capture, and the stream-ordered allocator it needs
};

template <typename F>
void look_up(F *&entry, const char *name) {
    entry = reinterpret_cast<F *>(halide_cuda_get_symbol(nullptr, name));
}

// Filled on first use, from a thread that holds Halide's context (so libcuda is loaded).
Driver &driver() {
    static Driver d = [] {
        Driver d;
        if (!halide_cuda_get_symbol) return d;
        look_up(d.push, "cuCtxPushCurrent_v2");
        look_up(d.pop, "cuCtxPopCurrent_v2");
        look_up(d.current_device, "cuCtxGetDevice");
        look_up(d.context_id, "cuCtxGetId");
        look_up(d.device_attribute, "cuDeviceGetAttribute");
        look_up(d.create_stream, "cuStreamCreate");
        look_up(d.alloc, "cuMemAlloc_v2");
        look_up(d.free, "cuMemFree_v2");
        look_up(d.alloc_async, "cuMemAllocAsync");
        look_up(d.free_async, "cuMemFreeAsync");
        look_up(d.default_pool, "cuDeviceGetDefaultMemPool");
        look_up(d.set_pool_attribute, "cuMemPoolSetAttribute");
        look_up(d.begin_capture, "cuStreamBeginCapture_v2");
        look_up(d.end_capture, "cuStreamEndCapture");
        look_up(d.instantiate, "cuGraphInstantiateWithFlags");
        look_up(d.launch, "cuGraphLaunch");
        look_up(d.destroy_exec, "cuGraphExecDestroy");
        look_up(d.destroy_graph, "cuGraphDestroy");
        look_up(d.graph_nodes, "cuGraphGetNodes");
        look_up(d.error_name, "cuGetErrorName");
        d.basics = d.push && d.pop && d.current_device && d.device_attribute && d.create_stream && d.alloc && d.free;
        d.graphs = d.basics && d.alloc_async && d.free_async && d.default_pool && d.set_pool_attribute &&
                   d.begin_capture && d.end_capture && d.instantiate && d.launch && d.destroy_exec &&
                   d.destroy_graph && d.graph_nodes;
        return d;
    }();
    return d;
}

// Whether the stream-ordered allocator serves device memory: the driver has it and the device
// has memory pools. Then the device's default pool is kept whole between forwards (by default it
// returns freed memory to the driver at every synchronisation). First called with a context
// current; the answer holds for the process.
bool memory_pools() {
    static const bool pools = [] {
        const Driver &d = driver();
        CuDevice device = 0;
        int supported = 0;
        CuMemPool pool = nullptr;
        uint64_t keep_all = std::numeric_limits<uint64_t>::max();
        return d.graphs && d.current_device(&device) == 0 &&
               d.device_attribute(&supported, kAttributeMemoryPools, device) == 0 && supported != 0 &&
               d.default_pool(&pool, device) == 0 && d.set_pool_attribute(pool, kPoolReleaseThreshold, &keep_all) == 0;
    }();
    return pools;
}

std::string error_text(CuResult result) {
    const char *name = nullptr;
    if (driver().error_name) driver().error_name(result, &name);
    return name ? name : "CUDA error " + std::to_string(result);
}

// Halide's context, current on this thread for the object's life.
class ScopedContext {
  public:
    ScopedContext(void *user_context, bool create) : user_context_(user_context) {
        if (!halide_cuda_acquire_context) return;
        acquired_ = halide_cuda_acquire_context(user_context, &context_, create) == 0;
        if (!acquired_ || !context_) return;
        if (!driver().basics || driver().push(context_) != 0) context_ = nullptr;
    }
    ~ScopedContext() {
        if (context_) {
            CuContext popped = nullptr;
            driver().pop(&popped);
        }
        if (acquired_) halide_cuda_release_context(user_context_);
    }
    ScopedContext(const ScopedContext &) = delete;
    ScopedContext &operator=(const ScopedContext &) = delete;
    // Null if there is no context (or it could not be made current).
    CuContext context() const { return context_; }

  private:
    void *user_context_;
    CuContext context_ = nullptr;
    bool acquired_ = false;
};

// A context's identity: its ID where the driver gives one, since one made after Halide's was
// released may reuse its address.
unsigned long long context_identity(CuContext context) {
    unsigned long long id = 0;
    if (driver().context_id && driver().context_id(context, &id) == 0) return id;
    return reinterpret_cast<uintptr_t>(context);
}

// Whether this thread is capturing: frees then go on the captured stream, as graph nodes.
thread_local bool capturing = false;

// This thread's stream in `context` (current). Streams are never destroyed: one per thread that
// runs a CUDA network, and the driver releases them with the context.
CuResult thread_stream(CuContext context, CuStream *stream) {
    thread_local unsigned long long made_in = 0;
    thread_local CuStream made = nullptr;
    const unsigned long long id = context_identity(context);
    if (!made || made_in != id) {
        CuStream fresh = nullptr;
        if (CuResult result = driver().create_stream(&fresh, kStreamBlocking)) return result;
        made = fresh;
        made_in = id;
    }
    *stream = made;
    return 0;
}

// Without a stream of its own (the driver could not make one), Halide keeps the legacy stream:
// kernels still run, and a capture fails on its own.
int cortado_cuda_get_stream(void *, void *context, void **stream) {
    CuStream s = nullptr;
    if (!driver().basics || thread_stream(context, &s) != 0) s = nullptr;
    *stream = s;
    return 0;
}

int report(void *user_context, const std::string &message, int code) {
    if (halide_error) halide_error(user_context, message.c_str());
    return code;
}

}  // namespace

struct CudaGraph {
    CuGraph graph = nullptr;
    CuGraphExec exec = nullptr;
    unsigned long long context = 0;  // context_identity of the context it was made in
};

void use_cortado_cuda_streams() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (halide_set_cuda_get_stream) halide_set_cuda_get_stream(cortado_cuda_get_stream);
    });
}

std::shared_mutex &cuda_capture_mutex() {
    static auto *mutex = new std::shared_mutex;  // never destroyed: networks may outlive statics
    return *mutex;
}

CudaGraph *capture_cuda_graph(const std::function<int()> &steps, std::string *why) {
    const char *setting = std::getenv("CORTADO_CUDA_GRAPHS");
    if (setting && std::strcmp(setting, "0") == 0) {
        *why = "$CORTADO_CUDA_GRAPHS=0";
        return nullptr;
    }
    ScopedContext scope(nullptr, true);
    if (!scope.context()) {
        *why = "no CUDA context";
        return nullptr;
    }
    const Driver &d = driver();
    if (!memory_pools()) {
        *why = d.graphs ? "the device has no memory pools (cuMemAllocAsync)" : "the driver has no CUDA graphs";
        return nullptr;
    }
    CuStream stream = nullptr;
    if (CuResult result = thread_stream(scope.context(), &stream)) {
        *why = "cuStreamCreate failed: " + error_text(result);
        return nullptr;
    }
    if (CuResult result = d.begin_capture(stream, kCaptureThreadLocal)) {
        *why = "cuStreamBeginCapture failed: " + error_text(result);
        return nullptr;
    }
    capturing = true;
    const int steps_result = steps();
    capturing = false;
    CuGraph graph = nullptr;
    const CuResult ended = d.end_capture(stream, &graph);
    const auto refuse = [&](const std::string &reason) -> CudaGraph * {
        if (graph) d.destroy_graph(graph);
        *why = reason;
        return nullptr;
    };
    if (steps_result != 0) return refuse("a kernel failed under capture (Halide error " + std::to_string(steps_result) + ")");
    if (ended != 0 || !graph) return refuse("cuStreamEndCapture failed: " + error_text(ended));
    size_t nodes = 0;
    // None: Halide launched on another stream (an application's own get-stream handler,
    // installed after cortado's), so the kernels ran instead of being captured.
    if (d.graph_nodes(graph, nullptr, &nodes) != 0 || nodes == 0)
        return refuse("nothing was captured (Halide's kernels go to another stream)");
    CuGraphExec exec = nullptr;
    if (CuResult result = d.instantiate(&exec, graph, 0)) return refuse("cuGraphInstantiate failed: " + error_text(result));
    return new CudaGraph{graph, exec, context_identity(scope.context())};
}

int launch_cuda_graph(CudaGraph *graph, std::string *why) {
    ScopedContext scope(nullptr, true);
    if (!scope.context()) {
        *why = "no CUDA context";
        return kErrorNotSupported;
    }
    if (context_identity(scope.context()) != graph->context) {
        *why = "Halide's CUDA context was released after the graph was captured";
        return kErrorNotSupported;
    }
    CuStream stream = nullptr;
    CuResult result = thread_stream(scope.context(), &stream);
    if (result == 0) result = driver().launch(graph->exec, stream);
    if (result != 0) *why = "cuGraphLaunch failed: " + error_text(result);
    return result;
}

void destroy_cuda_graph(CudaGraph *graph) {
    if (!graph) return;
    ScopedContext scope(nullptr, false);  // with Halide's context gone, so are its graphs
    if (scope.context() && context_identity(scope.context()) == graph->context) {
        driver().destroy_exec(graph->exec);
        driver().destroy_graph(graph->graph);
    }
    delete graph;
}

bool is_cuda_device(const halide_device_interface_t *device) {
    return halide_cuda_device_interface && device && device == halide_cuda_device_interface();
}

}  // namespace cortado

// Replace the weak definitions of Halide's CUDA runtime (cuda_graph.h says why). Same contract:
// a buffer that already has device memory keeps it; an error code otherwise.
extern "C" int halide_cuda_device_malloc(void *user_context, halide_buffer_t *buf) {
    using namespace cortado;
    if (buf->device) return 0;
    const size_t bytes = buf->size_in_bytes();
    if (bytes == 0) return halide_error_code_device_malloc_failed;
    ScopedContext scope(user_context, true);
    if (!scope.context()) return report(user_context, "CUDA: no context to allocate in", halide_error_code_device_malloc_failed);
    const Driver &d = driver();
    CuDevicePtr pointer = 0;
    CuResult result = 0;
    CuStream stream = nullptr;
    if (memory_pools()) {
        result = thread_stream(scope.context(), &stream);
        if (result == 0) result = d.alloc_async(&pointer, bytes, stream);
    } else {
        result = d.alloc(&pointer, bytes);
    }
    if (result != 0)
        return report(user_context, "CUDA: allocating " + std::to_string(bytes) + " bytes failed: " + error_text(result),
                      result);
    const int wrapped = halide_cuda_wrap_device_ptr(user_context, buf, pointer);
    if (wrapped != 0) stream ? d.free_async(pointer, stream) : d.free(pointer);
    return wrapped;
}

extern "C" int halide_cuda_device_free(void *user_context, halide_buffer_t *buf) {
    using namespace cortado;
    if (!buf->device) return 0;
    const CuDevicePtr pointer = halide_cuda_get_device_ptr(user_context, buf);
    if (int result = halide_cuda_detach_device_ptr(user_context, buf)) return result;
    ScopedContext scope(user_context, false);  // no context: the memory went with it
    if (!scope.context()) return 0;
    const Driver &d = driver();
    if (!memory_pools()) return d.free(pointer);
    // Under capture, on the captured stream (a node of the graph). Otherwise on the legacy
    // stream, which waits for every blocking stream: a kernel of another thread's forward that
    // failed midway may still read the memory.
    CuStream stream = nullptr;
    if (capturing) {
        if (CuResult result = thread_stream(scope.context(), &stream)) return result;
    }
    return d.free_async(pointer, stream);
}
