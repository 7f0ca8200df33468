// The peers of a cortado built where oneDNN or OpenBLAS was not found: the compiler, run, tune
// and `bench --prepare` work without them; the CPU suites of `bench` say what to install.
#include "frontend/compile_error.h"
#include "tools/bench/peers.h"

namespace cortado {

std::string peers_unavailable_reason() {
    return "this cortado was built without oneDNN and OpenBLAS, the CPU peers bench compares with: install "
           "libdnnl-dev and libopenblas-dev and build it again";
}

PeerTiming onednn_convolution(const ConvShape &, const std::vector<float> &, const std::vector<float> &,
                              const std::vector<float> &, std::vector<float> *, int) {
    throw CompileError(peers_unavailable_reason());
}

PeerTiming onednn_inner_product(int, int, int, const std::vector<float> &, const std::vector<float> &,
                                const std::vector<float> &, std::vector<float> *, int) {
    throw CompileError(peers_unavailable_reason());
}

PeerTiming openblas_sgemm(int, int, int, const std::vector<float> &, const std::vector<float> &, std::vector<float> *,
                          int) {
    throw CompileError(peers_unavailable_reason());
}

std::string openblas_core_for_this_cpu() { return ""; }

}  // namespace cortado
