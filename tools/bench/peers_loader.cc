// The CLI's side of the bench peers (tools/bench/peer_library.h): the module is loaded at the
// first call, from beside libcortado_runtime.a (compiler/install_layout.h), and only by `bench`.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "compiler/install_layout.h"
#include "frontend/compile_error.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/peer_library.h"

namespace cortado {
namespace {

PeerTiming time_runs(int iterations, const std::function<void()> &run) {
    run();  // warm-up
    const Timing t = time_calls(iterations, run);
    return PeerTiming{t.median_ms, t.min_ms, t.max_ms, ""};
}

// OpenBLAS picks its kernels once, as it loads: where this CPU calls for another set than
// OpenBLAS detects, or than an inherited OPENBLAS_CORETYPE names, the module is loaded with
// OPENBLAS_CORETYPE set, so that the peer is never held to a narrower instruction set than
// cortado. The report names the set either way.
void use_openblas_kernels_for_this_cpu() {
    const std::string core = openblas_core_for_this_cpu();
    const char *inherited = std::getenv("OPENBLAS_CORETYPE");
    if (core.empty() || (inherited && core == inherited)) return;
    if (inherited)
        std::cerr << "cortado bench: OPENBLAS_CORETYPE=" << inherited << " replaced by " << core
                  << ", the kernel set of this CPU's instruction set\n";
    ::setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
}

struct Loaded {
    const PeerLibrary *library = nullptr;
    std::string reason;  // why there is none
};

const Loaded &loaded() {
    static const Loaded peers = [] {
        Loaded l;
        const std::string path = install_prefix() + "/lib/" + kPeerModule;
        if (!std::filesystem::exists(path)) {
            l.reason = "this cortado was built without oneDNN and OpenBLAS, the CPU peers bench compares with (no " +
                       path + "): install libdnnl-dev and libopenblas-dev and build it again";
            return l;
        }
        use_openblas_kernels_for_this_cpu();
        void *module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        const auto entry = module ? reinterpret_cast<PeerLibraryEntry>(::dlsym(module, kPeerLibraryEntry)) : nullptr;
        if (!entry) {
            l.reason = std::string("cannot load the CPU peers bench compares with: ") + ::dlerror() +
                       " (install libdnnl-dev and libopenblas-dev, or build cortado again)";
            return l;
        }
        l.library = entry(time_runs);
        return l;
    }();
    return peers;
}

const PeerLibrary &library() {
    if (!loaded().library) throw CompileError(loaded().reason);
    return *loaded().library;
}

}  // namespace

std::string peers_unavailable_reason() { return loaded().reason; }

PeerTiming onednn_convolution(const ConvShape &shape, const std::vector<float> &input,
                              const std::vector<float> &weights, const std::vector<float> &bias,
                              std::vector<float> *output, int iterations) {
    return library().convolution(shape, input, weights, bias, output, iterations);
}

PeerTiming onednn_inner_product(int m, int n, int k, const std::vector<float> &input, const std::vector<float> &weights,
                                const std::vector<float> &bias, std::vector<float> *output, int iterations) {
    return library().inner_product(m, n, k, input, weights, bias, output, iterations);
}

PeerTiming openblas_sgemm(int m, int n, int k, const std::vector<float> &a, const std::vector<float> &b,
                          std::vector<float> *c, int iterations) {
    return library().sgemm(m, n, k, a, b, c, iterations);
}

std::string openblas_core_for_this_cpu() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
#endif
    return "";
}

}  // namespace cortado
