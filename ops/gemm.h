// GEMM's descriptor (Halide-free): C (m x n) = op(A) (m x k) · op(B) (k x n), all row-major, op
// the transpose when trans_a / trans_b is set; a bias per column of C and an activation follow
// (Choice::epilogue). The same blocking knobs serve this op and the GEMM variants of
// InnerProduct and Convolution; GemmBlocking reads them.
#pragma once

#include <algorithm>
#include <string>

#include "ops/conv2d.h"
#include "ops/inner_product.h"
#include "ops/op.h"

namespace cortado::ops {

struct GemmShape {
    static constexpr const char *kOp = "gemm";
    int m = 1, n = 1, k = 1;
    bool trans_a = false, trans_b = false;

    template <typename Visit>
    void fields(Visit &&visit) {
        visit("m", m), visit("n", n), visit("k", k), visit("trans_a", trans_a), visit("trans_b", trans_b);
    }
};

using GemmOp = Op<GemmShape>;

// The product a GEMM kernel computes: C(x, y, n) = Σ_k a(k, y) · b(x, k, n) for y < rows (M),
// x < cols (N), k < depth (K) and n < batch independent products that share a.
struct GemmDims {
    int rows = 1, cols = 1, depth = 1, batch = 1;
};

inline GemmDims gemm_dims(const GemmShape &s) { return {s.m, s.n, s.k, 1}; }

// InnerProduct: a row of inputs per y, output neurons along x (the weights are b).
inline GemmDims gemm_dims(const InnerProductShape &s) { return {s.rows, s.outputs, s.inputs, 1}; }

// A convolution whose kernel covers the whole unpadded input, leaving a 1x1 output: an
// InnerProduct over the flattened image, read in place.
inline bool is_fully_connected(const Conv2dShape &s) {
    return s.group == 1 && s.out_h == 1 && s.out_w == 1 && s.pad_h == 0 && s.pad_w == 0 && s.kernel_h == s.in_h &&
           s.kernel_w == s.in_w && s.dilation_h == 1 && s.dilation_w == 1;
}
inline GemmDims fully_connected_gemm_dims(const Conv2dShape &s) {
    return {s.batch, s.out_channels, s.in_channels * s.kernel_h * s.kernel_w, 1};
}

// A 1x1 convolution at stride 1 without padding: per image, output channels (y, the weights
// are a) by pixels (x, read in place along the rows of the image).
inline bool is_pointwise(const Conv2dShape &s) {
    return s.group == 1 && s.kernel_h == 1 && s.kernel_w == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_h == 0 &&
           s.pad_w == 0;
}
// Any 1x1 convolution without padding in one group, at any stride: each output pixel reads one
// input pixel (ResNet's downsampling shortcuts at stride 2). The GEMM that reads its input by
// broadcasts (channels in the lanes) reads those pixels where they lie.
inline bool is_strided_pointwise(const Conv2dShape &s) {
    return s.group == 1 && s.kernel_h == 1 && s.kernel_w == 1 && s.pad_h == 0 && s.pad_w == 0;
}
inline GemmDims pointwise_gemm_dims(const Conv2dShape &s) {
    return {s.out_channels, s.out_h * s.out_w, s.in_channels, s.batch};
}
// The same product with the roles swapped, for maps too small to fill vectors of pixels and for
// strides above 1: output pixels (y) by output channels (x, the weights are b), C stored
// transposed.
inline GemmDims pointwise_channel_gemm_dims(const Conv2dShape &s) {
    return {s.out_h * s.out_w, s.out_channels, s.in_channels, s.batch};
}

// Why each convolution GEMM form refuses a layer ("" where it takes it): every family's variants
// of that form give the same reason.
inline std::string fully_connected_unsupported(const Conv2dShape &s) {
    return is_fully_connected(s) ? "" : "the kernel does not cover the whole unpadded input";
}
inline std::string pointwise_unsupported(const Conv2dShape &s) {
    return is_pointwise(s) ? "" : "not a 1x1 kernel at stride 1 without padding, in one group";
}
inline std::string strided_pointwise_unsupported(const Conv2dShape &s) {
    return is_strided_pointwise(s) ? "" : "not a 1x1 kernel without padding, in one group";
}

inline GemmDims conv_gemm_dims(const Conv2dShape &s, ConvGemmForm form) {
    switch (form) {
    case ConvGemmForm::FullyConnected: return fully_connected_gemm_dims(s);
    case ConvGemmForm::ChannelLanes: return pointwise_channel_gemm_dims(s);
    case ConvGemmForm::PixelLanes: break;
    }
    return pointwise_gemm_dims(s);
}

// The blocking of a CPU GEMM, from a choice's knobs. The register tile is `rows` of C by
// `cols` columns (a whole number of vectors); K is summed `k_block` at a time; each parallel
// task owns `row_block` x `col_block` of C. `pack` copies the vector operand into panels once
// per task and K block; variants whose b is packed at create time have no such knob.
struct GemmBlocking {
    int rows, cols, k_block, row_block, col_block;
    bool pack;

    static GemmBlocking from(const Knobs &k) {
        return {k.get("rows"),      k.get("cols"),      k.get("k_block"),
                k.get("row_block"), k.get("col_block"), k.has("pack") && k.get("pack") != 0};
    }
};

// Panels of `width` that hold `outputs` output channels, the last zero-padded.
inline int panel_count(int outputs, int width) { return (outputs + width - 1) / width; }

// The width of the panels the runtime packs the weights into (WeightPacking); 0: not packed.
// Variants with a `panel` knob set it; the CPU ones pack one register tile's width.
inline int panel_width(const Choice &c) {
    if (c.weights != WeightPacking::CaffeOrder && c.knobs.has("panel")) return c.knobs.get("panel");
    switch (c.weights) {
    case WeightPacking::ColumnPanels:
    case WeightPacking::WinogradPanels:
    case WeightPacking::Int8Panels:
    case WeightPacking::Fp16Panels: return c.knobs.get("cols");
    case WeightPacking::RowPanels: return c.knobs.get("rows");
    case WeightPacking::CaffeOrder: break;
    }
    return 0;
}

}  // namespace cortado::ops
