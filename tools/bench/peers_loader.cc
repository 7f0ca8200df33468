// The CLI's side of the bench peers (tools/bench/peer_library.h): the module is loaded at the
// first call, from beside libcortado_runtime.a (compiler/install_layout.h), and only by `bench`.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

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
// cortado. The report names the set either way. The inherited value comes back after the load,
// for the processes bench starts (onnxruntime's peer).
void *open_with_openblas_kernels_for_this_cpu(const std::string &path) {
    const auto open = [&] { return ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL); };
    const std::string core = openblas_core_for_this_cpu();
    const char *inherited_value = std::getenv("OPENBLAS_CORETYPE");
    const std::optional<std::string> inherited =
        inherited_value ? std::optional<std::string>(inherited_value) : std::nullopt;
    if (core.empty() || core == inherited) return open();
    if (inherited)
        std::cerr << "cortado bench: OPENBLAS_CORETYPE=" << *inherited << " replaced by " << core
                  << " for OpenBLAS, the kernel set of this CPU's instruction set\n";
    ::setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
    void *module = open();
    if (inherited) ::setenv("OPENBLAS_CORETYPE", inherited->c_str(), 1);
    else ::unsetenv("OPENBLAS_CORETYPE");
    return module;
}

struct Loaded {
    const PeerLibrary *library = nullptr;
    std::string reason;  // why there is none
};

const Loaded &loaded() {
    static const Loaded peers = [] {
        Loaded l;
        const std::string path = install_prefix() + "/lib/" + kPeerModule;
        std::error_code missing;
        if (!std::filesystem::exists(path, missing)) {
            l.reason =
                "this cortado was built without oneDNN and OpenBLAS, the CPU peers bench compares with, or "
                "installed without them (no " +
                path + "): install libdnnl-dev and libopenblas-dev and build it again";
            return l;
        }
        void *module = open_with_openblas_kernels_for_this_cpu(path);
        const auto entry = module ? reinterpret_cast<PeerLibraryEntry>(::dlsym(module, kPeerLibraryEntry)) : nullptr;
        if (!entry) {
            const char *error = ::dlerror();
            l.reason = "cannot load the CPU peers bench compares with: " + std::string(error ? error : path) +
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
