// The bench peers module (tools/bench/peer_library.h): oneDNN's convolution and inner product
// and OpenBLAS's sgemm, behind the table the CLI loads.
#include <cblas.h>

#include <dnnl.hpp>

#include "tools/bench/peer_library.h"

namespace cortado {
namespace {

TimeRuns time_runs = nullptr;  // the CLI's, given with the table

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// `user` as oneDNN's chosen layout: reordered once, outside any timing, when they differ.
dnnl::memory in_layout(dnnl::memory &user, const dnnl::memory::desc &wanted, const dnnl::engine &cpu,
                       dnnl::stream &strm) {
    if (user.get_desc() == wanted) return user;
    dnnl::memory converted(wanted, cpu);
    dnnl::reorder(user, converted).execute(strm, user, converted);
    return converted;
}

// One oneDNN convolution algorithm: convolution_direct, or convolution_auto (which may pick
// Winograd). Throws dnnl::error when oneDNN has no implementation of it for the shape.
PeerTiming onednn_convolution_with(dnnl::algorithm algorithm, const ConvShape &s, const std::vector<float> &input,
                                   const std::vector<float> &weights, const std::vector<float> &bias,
                                   std::vector<float> *output, int iterations) {
    using namespace dnnl;
    engine cpu(engine::kind::cpu, 0);
    stream strm(cpu);
    const memory::dims src_dims{s.batch, s.in_channels, s.in_h, s.in_w};
    // Grouped weights are (group, out/group, in/group, kh, kw): the same bytes as Caffe's OIHW.
    const memory::dims weight_dims =
        s.group == 1 ? memory::dims{s.out_channels, s.in_channels, s.kernel_h, s.kernel_w}
                     : memory::dims{s.group, s.out_channels / s.group, s.in_channels / s.group, s.kernel_h, s.kernel_w};
    const memory::dims bias_dims{s.out_channels};
    const memory::dims dst_dims{s.batch, s.out_channels, s.out_h, s.out_w};
    // Caffe rounds the output size down; oneDNN wants the right padding that gives it exactly.
    const memory::dims pad_left{s.pad_h, s.pad_w};
    const int extent_h = (s.kernel_h - 1) * s.dilation_h + 1, extent_w = (s.kernel_w - 1) * s.dilation_w + 1;
    const memory::dims pad_right{(s.out_h - 1) * s.stride_h + extent_h - s.in_h - s.pad_h,
                                 (s.out_w - 1) * s.stride_w + extent_w - s.in_w - s.pad_w};
    convolution_forward::desc desc(prop_kind::forward_inference, algorithm, memory::desc(src_dims, dt::f32, tag::any),
                                   memory::desc(weight_dims, dt::f32, tag::any),
                                   memory::desc(bias_dims, dt::f32, tag::x), memory::desc(dst_dims, dt::f32, tag::any),
                                   {s.stride_h, s.stride_w}, {s.dilation_h - 1, s.dilation_w - 1}, pad_left, pad_right);
    convolution_forward::primitive_desc pd(desc, cpu);

    memory user_src({src_dims, dt::f32, tag::nchw}, cpu, const_cast<float *>(input.data()));
    memory user_weights({weight_dims, dt::f32, s.group == 1 ? tag::oihw : tag::goihw}, cpu,
                        const_cast<float *>(weights.data()));
    memory bias_memory({bias_dims, dt::f32, tag::x}, cpu, const_cast<float *>(bias.data()));
    output->assign(size_t(s.batch) * s.out_channels * s.out_h * s.out_w, 0.0f);
    memory user_dst({dst_dims, dt::f32, tag::nchw}, cpu, output->data());
    memory src = in_layout(user_src, pd.src_desc(), cpu, strm);
    memory wei = in_layout(user_weights, pd.weights_desc(), cpu, strm);
    memory dst = pd.dst_desc() == user_dst.get_desc() ? user_dst : memory(pd.dst_desc(), cpu);
    convolution_forward conv(pd);
    PeerTiming timing = time_runs(iterations, [&] {
        conv.execute(strm,
                     {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias_memory}, {DNNL_ARG_DST, dst}});
        strm.wait();
    });
    if (dst != user_dst) reorder(dst, user_dst).execute(strm, dst, user_dst);
    strm.wait();
    timing.implementation = "oneDNN " + std::string(pd.impl_info_str()) +
                            (algorithm == algorithm::convolution_auto ? " (auto)" : " (direct)");
    return timing;
}

PeerTiming onednn_convolution(const ConvShape &s, const std::vector<float> &input, const std::vector<float> &weights,
                              const std::vector<float> &bias, std::vector<float> *output, int iterations) {
    PeerTiming best =
        onednn_convolution_with(dnnl::algorithm::convolution_direct, s, input, weights, bias, output, iterations);
    // convolution_auto differs from convolution_direct only where oneDNN has Winograd: 3x3
    // kernels at stride 1 in one group, undilated. Elsewhere it is the same direct kernel.
    const bool winograd_shape = s.kernel_h == 3 && s.kernel_w == 3 && s.stride_h == 1 && s.stride_w == 1 &&
                                s.group == 1 && s.dilation_h == 1 && s.dilation_w == 1;
    if (!winograd_shape) return best;
    std::vector<float> auto_output;
    try {
        const PeerTiming automatic = onednn_convolution_with(dnnl::algorithm::convolution_auto, s, input, weights, bias,
                                                             &auto_output, iterations);
        if (automatic.median_ms < best.median_ms) best = automatic;
    } catch (const dnnl::error &) {
        // No automatic choice for this shape: the direct one stands.
    }
    return best;
}

PeerTiming onednn_inner_product(int m, int n, int k, const std::vector<float> &input, const std::vector<float> &weights,
                                const std::vector<float> &bias, std::vector<float> *output, int iterations) {
    using namespace dnnl;
    engine cpu(engine::kind::cpu, 0);
    stream strm(cpu);
    const memory::dims src_dims{m, k}, weight_dims{n, k}, bias_dims{n}, dst_dims{m, n};
    inner_product_forward::desc desc(prop_kind::forward_inference, memory::desc(src_dims, dt::f32, tag::nc),
                                     memory::desc(weight_dims, dt::f32, tag::any),
                                     memory::desc(bias_dims, dt::f32, tag::x),
                                     memory::desc(dst_dims, dt::f32, tag::nc));
    inner_product_forward::primitive_desc pd(desc, cpu);
    memory src({src_dims, dt::f32, tag::nc}, cpu, const_cast<float *>(input.data()));
    memory user_weights({weight_dims, dt::f32, tag::oi}, cpu, const_cast<float *>(weights.data()));
    memory bias_memory({bias_dims, dt::f32, tag::x}, cpu, const_cast<float *>(bias.data()));
    output->assign(size_t(m) * n, 0.0f);
    memory dst({dst_dims, dt::f32, tag::nc}, cpu, output->data());
    memory wei = in_layout(user_weights, pd.weights_desc(), cpu, strm);
    inner_product_forward ip(pd);
    PeerTiming timing = time_runs(iterations, [&] {
        ip.execute(strm,
                   {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias_memory}, {DNNL_ARG_DST, dst}});
        strm.wait();
    });
    timing.implementation = "oneDNN " + std::string(pd.impl_info_str());
    return timing;
}

PeerTiming openblas_sgemm(int m, int n, int k, const std::vector<float> &a, const std::vector<float> &b,
                          std::vector<float> *c, int iterations) {
    c->assign(size_t(m) * n, 0.0f);
    PeerTiming timing = time_runs(iterations, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c->data(),
                    n);
    });
    timing.implementation = "OpenBLAS sgemm (" + std::string(openblas_get_corename()) + " kernels)";
    return timing;
}

const PeerLibrary kLibrary{onednn_convolution, onednn_inner_product, openblas_sgemm};

}  // namespace
}  // namespace cortado

extern "C" __attribute__((visibility("default"))) const cortado::PeerLibrary *cortado_bench_peer_library(
    cortado::TimeRuns time_runs) {
    cortado::time_runs = time_runs;
    return &cortado::kLibrary;
}
