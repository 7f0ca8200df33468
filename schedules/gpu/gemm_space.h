// The GEMM variants of the GPU family (Halide-free): the skinny and square forms of InnerProduct
// and of fully-connected and 1x1 convolutions, with their knobs, limits and
// default rules (schedules/gpu/gemm_tile.h). Weights that are b are packed at create time into
// panels as wide as a block's columns, so that a warp's loads at each k are one contiguous run;
// weights that are a (1x1 layers, pixels in the lanes) into panels as tall as a tile's rows.
#pragma once

#include <functional>
#include <string>

#include "ops/gemm.h"
#include "schedules/gpu/gemm_tile.h"
#include "schedules/gpu/limits.h"
#include "schedules/space.h"

namespace cortado::schedules::gpu {

// A GPU GEMM variant of `Shape` whose product is `dims(shape)`; `skinny` picks its form;
// `a_in_place`: a is an activation read along k (it can be packed per run, the pack_a knob).
template <typename Shape>
VariantSpec<Shape> gemm_variant(const std::string &name, bool skinny, ops::WeightPacking weights, bool a_in_place,
                                std::function<ops::GemmDims(const Shape &)> dims) {
    VariantSpec<Shape> v;
    v.name = name;
    v.form = ops::Form::gemm();
    v.sources = {"schedules/gpu/gemm.h", "schedules/gpu/gemm_space.h"};
    v.weights = weights;
    v.knobs = {{"cols", 1, 16, "adjacent columns of C per thread (b is read along them)"},
               {"rows", 1, 64, "rows of C per thread (broadcasts of a)"},
               {"threads_x", 1, 1024, "threads of a block along the columns"},
               {"threads_y", 1, 1024, "threads of a block along the rows"},
               {"k_block", 1, 1 << 20, "K per share; shorter than K splits it, a second kernel adds the shares"},
               {"k_unroll", 1, 16, "k per step, the operands of those k loaded first as vectors"}};
    if (weights != ops::WeightPacking::CaffeOrder)
        v.knobs.push_back({"panel", 1, 4096, "width of the packed weight panels"});
    if (a_in_place) v.knobs.push_back({"pack_a", 0, 1, "copy a (read along k in place) with its rows innermost first"});
    v.complete = [dims, skinny, weights, a_in_place](const Shape &s, const TargetInfo &t, Knobs &k) {
        complete_gemm_tile(dims(s), skinny, register_budget(t), a_in_place, k);
        if ((weights == ops::WeightPacking::ColumnPanels || weights == ops::WeightPacking::WinogradPanels) &&
            !k.has("panel"))
            k.set("panel", k.get("threads_x") * k.get("cols"));
        if (weights == ops::WeightPacking::RowPanels && !k.has("panel")) k.set("panel", k.get("rows"));
    };
    v.violated = [dims](const Shape &s, const TargetInfo &t, const Knobs &k) {
        return gemm_tile_violation(dims(s), register_budget(t), k);
    };
    return v;
}

// The form a product takes by default.
inline bool skinny_by_default(const ops::GemmDims &d) { return d.rows <= kSkinnyMaxRows; }

// InnerProduct: the weight-streaming `gemv` (kept as a variant) and the two GEMM forms.
inline OpSpace<InnerProductShape> inner_product_space(VariantSpec<InnerProductShape> gemv) {
    OpSpace<InnerProductShape> space;
    const auto dims = [](const InnerProductShape &s) { return ops::gemm_dims(s); };
    space.variants = {
        std::move(gemv),
        gemm_variant<InnerProductShape>("gpu_gemm", false, ops::WeightPacking::ColumnPanels, true, dims),
        gemm_variant<InnerProductShape>("gpu_skinny_gemm", true, ops::WeightPacking::ColumnPanels, true, dims)};
    space.default_variant = [](const InnerProductShape &s, const TargetInfo &) {
        return std::string(skinny_by_default(ops::gemm_dims(s)) ? "gpu_skinny_gemm" : "gpu_gemm");
    };
    return space;
}

// The GEMM op (a network's transposed-input Gemm, `cortado bench sgemm`): a and b as stored,
// read through their transposes.
inline OpSpace<GemmShape> gemm_space() {
    OpSpace<GemmShape> space;
    const auto dims = [](const GemmShape &s) { return ops::gemm_dims(s); };
    for (bool skinny : {false, true}) {
        VariantSpec<GemmShape> v = gemm_variant<GemmShape>(skinny ? "gpu_skinny_gemm" : "gpu_gemm", skinny,
                                                           ops::WeightPacking::CaffeOrder, true, dims);
        // A transposed a is stored with its rows innermost, the layout pack_a makes; read in
        // place along k it would need vectors of the rows' width, which OpenCL C lacks.
        const auto complete = v.complete;
        v.complete = [complete](const GemmShape &s, const TargetInfo &t, Knobs &k) {
            if (s.trans_a && !k.has("pack_a")) k.set("pack_a", 1);
            complete(s, t, k);
        };
        const auto violated = v.violated;
        v.violated = [violated](const GemmShape &s, const TargetInfo &t, const Knobs &k) -> std::string {
            if (s.trans_a && k.get("pack_a") == 0) return "a transposed a needs pack_a=1";
            return violated(s, t, k);
        };
        space.variants.push_back(std::move(v));
    }
    space.default_variant = [](const GemmShape &s, const TargetInfo &) {
        return std::string(skinny_by_default(ops::gemm_dims(s)) ? "gpu_skinny_gemm" : "gpu_gemm");
    };
    return space;
}

// Convolution: fully-connected layers in either form (the image is a row of a, the weights
// packed column panels), 1x1 layers as a square GEMM per image, pixels along the columns (the
// weights are a, in row panels; stride 1) or output channels (the weights are b; small maps and
// strided shortcuts); everything else by the convolution variants listed first in `conv`.
inline void add_conv2d_gemm_variants(OpSpace<Conv2dShape> &conv) {
    for (bool skinny : {false, true}) {
        auto fc =
            gemm_variant<Conv2dShape>(skinny ? "gpu_skinny_gemm_fully_connected" : "gpu_gemm_fully_connected", skinny,
                                      ops::WeightPacking::ColumnPanels, true, ops::fully_connected_gemm_dims);
        fc.form = ops::Form::conv_gemm(ops::ConvGemmForm::FullyConnected);
        fc.unsupported = ops::fully_connected_unsupported;
        conv.variants.push_back(std::move(fc));
    }
    auto pixels = gemm_variant<Conv2dShape>("gpu_gemm_1x1", false, ops::WeightPacking::RowPanels, false,
                                            ops::pointwise_gemm_dims);
    pixels.form = ops::Form::conv_gemm(ops::ConvGemmForm::PixelLanes);
    pixels.unsupported = ops::pointwise_unsupported;
    conv.variants.push_back(std::move(pixels));
    auto channels = gemm_variant<Conv2dShape>("gpu_gemm_1x1_channel_lanes", false, ops::WeightPacking::ColumnPanels,
                                              false, ops::pointwise_channel_gemm_dims);
    channels.form = ops::Form::conv_gemm(ops::ConvGemmForm::ChannelLanes);
    // Its rows are output pixels, each reading its input pixel where it lies: any stride.
    channels.unsupported = ops::strided_pointwise_unsupported;
    conv.variants.push_back(std::move(channels));
}

// From how many pixels per image a 1x1 layer puts pixels along the columns.
inline constexpr int kPixelColumnsMinPixels = 784;

// The GEMM variant a convolution takes by default; empty for one that is no GEMM.
inline std::string conv2d_gemm_default(const Conv2dShape &s) {
    if (ops::is_fully_connected(s))
        return skinny_by_default(ops::fully_connected_gemm_dims(s)) ? "gpu_skinny_gemm_fully_connected"
                                                                    : "gpu_gemm_fully_connected";
    if (ops::is_pointwise(s))
        return s.out_h * s.out_w >= kPixelColumnsMinPixels ? "gpu_gemm_1x1" : "gpu_gemm_1x1_channel_lanes";
    return "";
}

}  // namespace cortado::schedules::gpu
