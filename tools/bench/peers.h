// The libraries users would pick instead of cortado on a CPU, run on the same data so `cortado
// bench` can check their output against ours before timing either: oneDNN convolution (best
// implementation it offers for the shape; layout reorders outside the timing) and OpenBLAS sgemm.
#pragma once

#include <string>
#include <vector>

namespace cortado {

struct ConvShape {
    int batch, in_channels, in_h, in_w, out_channels, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, out_h,
        out_w;
    int group = 1, dilation_h = 1, dilation_w = 1;
};

struct PeerTiming {
    double median_ms, min_ms, max_ms;
    std::string implementation;
};

// NCHW input, OIHW weights (I = in_channels / group), bias; writes NCHW output. oneDNN gets its
// best: convolution_direct and convolution_auto (Winograd where this oneDNN offers it) are both
// timed, and the faster one's timing is returned with the direct one's output (Winograd's is
// less exact than the bench's agreement check). Throws dnnl::error on failure.
PeerTiming onednn_convolution(const ConvShape &shape, const std::vector<float> &input,
                              const std::vector<float> &weights, const std::vector<float> &bias,
                              std::vector<float> *output, int iterations);

// oneDNN inner product: output (M x N) = input (M x K) * weights^T + bias, weights N x K.
PeerTiming onednn_inner_product(int m, int n, int k, const std::vector<float> &input, const std::vector<float> &weights,
                                const std::vector<float> &bias, std::vector<float> *output, int iterations);

// C (M x N) = A (M x K) * B (K x N), all row-major. The implementation names OpenBLAS's
// kernel set.
PeerTiming openblas_sgemm(int m, int n, int k, const std::vector<float> &a, const std::vector<float> &b,
                          std::vector<float> *c, int iterations);

// "" when the peers module (tools/bench/peer_library.h) loads; otherwise why not and what to
// install, the reason the functions above then throw CompileError with. Loads the module.
std::string peers_unavailable_reason();

// The OpenBLAS kernel set this CPU's instruction set calls for where OpenBLAS's own detection
// may fall short: "SkylakeX" on any CPU with AVX-512 F/BW/DQ/VL (OpenBLAS 0.3.21 takes a Zen 5
// for a Haswell and runs its AVX2 kernels); "" to keep OpenBLAS's choice. OpenBLAS reads
// OPENBLAS_CORETYPE once, when it is loaded: the module is loaded with it set.
std::string openblas_core_for_this_cpu();

}  // namespace cortado
