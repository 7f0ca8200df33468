// The GPU family's variants (CUDA and OpenCL) bound to their schedule functions
// (generators/schedule_registry.h): each variant's knobs handed to its schedule.
#include "generators/concat.h"
#include "generators/conv2d.h"
#include "generators/conv2d_channel_lanes.h"
#include "generators/conv2d_fp16.h"
#include "generators/conv2d_int8.h"
#include "generators/conv2d_pool.h"
#include "generators/conv2d_winograd.h"
#include "generators/deconv2d.h"
#include "generators/elementwise.h"
#include "generators/gemm.h"
#include "generators/inner_product.h"
#include "generators/lrn.h"
#include "generators/pad.h"
#include "generators/pooling.h"
#include "generators/rearrange.h"
#include "generators/resize.h"
#include "generators/schedule_registry.h"
#include "generators/softmax.h"
#include "schedules/gpu/concat.h"
#include "schedules/gpu/conv2d.h"
#include "schedules/gpu/conv2d_channel_lanes.h"
#include "schedules/gpu/conv2d_channel_lanes_space.h"
#include "schedules/gpu/conv2d_depthwise.h"
#include "schedules/gpu/conv2d_depthwise_space.h"
#include "schedules/gpu/conv2d_fp16.h"
#include "schedules/gpu/conv2d_fp16_space.h"
#include "schedules/gpu/conv2d_int8.h"
#include "schedules/gpu/conv2d_int8_space.h"
#include "schedules/gpu/conv2d_pool.h"
#include "schedules/gpu/conv2d_pool_space.h"
#include "schedules/gpu/conv2d_winograd.h"
#include "schedules/gpu/deconv2d.h"
#include "schedules/gpu/elementwise.h"
#include "schedules/gpu/gemm.h"
#include "schedules/gpu/inner_product.h"
#include "schedules/gpu/lrn.h"
#include "schedules/gpu/pad.h"
#include "schedules/gpu/pooling.h"
#include "schedules/gpu/rearrange.h"
#include "schedules/gpu/resize.h"
#include "schedules/gpu/softmax.h"

namespace cortado::schedules::gpu {
namespace {

using Halide::Target;

const BindSchedule<Conv2d, ops::Conv2dOp> conv2d_register_tile_binding{
    "gpu_register_tile", [](Conv2d &a, const ops::Conv2dOp &op, const Target &) {
        schedule_conv2d_registers(a, op.shape, conv2d_knobs(op.choice.knobs));
    }};
const BindSchedule<Conv2d, ops::Conv2dOp> conv2d_staged_binding{
    "gpu_staged", [](Conv2d &a, const ops::Conv2dOp &op, const Target &) {
        schedule_conv2d_with_staging(a, op.shape, conv2d_knobs(op.choice.knobs));
    }};
const BindSchedule<Conv2d, ops::Conv2dOp> conv2d_depthwise_binding{
    kGpuDepthwise, [](Conv2d &a, const ops::Conv2dOp &op, const Target &) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_depthwise(a, op.shape, k.get("threads"), k.get("rows"), k.get("cols"), k.get("channels"));
    }};
const BindSchedule<Conv2dChannelLanes, ops::Conv2dOp> conv2d_channel_lanes_binding{
    kGpuChannelLanes, [](Conv2dChannelLanes &a, const ops::Conv2dOp &op, const Target &) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_channel_lanes(
            a, op.shape, {k.get("channels"), k.get("panel"), k.get("rows"), k.get("threads_q"), k.get("split_k")});
    }};
const BindSchedule<Conv2dInt8, ops::Conv2dInt8Op> conv2d_int8_binding{
    kGpuInt8ChannelLanes, [](Conv2dInt8 &a, const ops::Conv2dInt8Op &op, const Target &) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_int8(a, op.shape.conv, {k.get("rows"), k.get("threads_q"), k.get("threads_c")});
    }};
const BindSchedule<Conv2dPool, ops::Conv2dPoolOp> conv2d_pool_binding{
    kGpuConvPool, [](Conv2dPool &a, const ops::Conv2dPoolOp &op, const Target &) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_pool(a, op.shape, k.get("channels"), k.get("threads_x"), k.get("threads_y"));
    }};
const BindSchedule<Conv2dFp16, ops::Conv2dFp16Op> conv2d_fp16_binding{
    kGpuFp16ChannelLanes, [](Conv2dFp16 &a, const ops::Conv2dFp16Op &op, const Target &) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_fp16(a, op.shape.conv,
                             {k.get("rows"), k.get("threads_q"), k.get("threads_c"), k.get("vector")});
    }};

// Channels in the lanes write C transposed (ops::ConvGemmForm).
void conv2d_gemm(Gemm &g, const ops::Conv2dOp &op, const Target &) {
    schedule_gemm(g, GemmGpuTile::from(op.choice.knobs), op.choice.form.is_conv_gemm(ops::ConvGemmForm::ChannelLanes));
}
const BindSchedule<Gemm, ops::Conv2dOp> conv2d_gemm_fc_binding{"gpu_gemm_fully_connected", conv2d_gemm};
const BindSchedule<Gemm, ops::Conv2dOp> conv2d_skinny_gemm_fc_binding{"gpu_skinny_gemm_fully_connected", conv2d_gemm};
const BindSchedule<Gemm, ops::Conv2dOp> conv2d_gemm_1x1_binding{"gpu_gemm_1x1", conv2d_gemm};
const BindSchedule<Gemm, ops::Conv2dOp> conv2d_gemm_channels_binding{"gpu_gemm_1x1_channel_lanes", conv2d_gemm};

void winograd(Conv2dWinograd &a, const ops::Conv2dOp &op, const Target &) {
    schedule_conv2d_winograd(a, GemmGpuTile::from(op.choice.knobs));
}
const BindSchedule<Conv2dWinograd, ops::Conv2dOp> winograd_f2_binding{"gpu_winograd_f2", winograd};
const BindSchedule<Conv2dWinograd, ops::Conv2dOp> winograd_f4_binding{"gpu_winograd_f4", winograd};
const BindSchedule<Conv2dWinograd, ops::Conv2dOp> winograd_f2_5x5_binding{"gpu_winograd_f2_5x5", winograd};

const BindSchedule<InnerProduct, ops::InnerProductOp> inner_product_binding{
    "gpu_block_partials",
    [](InnerProduct &a, const ops::InnerProductOp &op, const Target &t) { schedule_inner_product(a, op.shape, t); }};
template <typename OpT>
void gemm(Gemm &g, const OpT &op, const Target &) {
    schedule_gemm(g, GemmGpuTile::from(op.choice.knobs));
}
const BindSchedule<Gemm, ops::InnerProductOp> inner_product_gemm_binding{"gpu_gemm", gemm<ops::InnerProductOp>};
const BindSchedule<Gemm, ops::InnerProductOp> inner_product_skinny_binding{"gpu_skinny_gemm",
                                                                           gemm<ops::InnerProductOp>};
const BindSchedule<Gemm, ops::GemmOp> gemm_binding{"gpu_gemm", gemm<ops::GemmOp>};
const BindSchedule<Gemm, ops::GemmOp> skinny_gemm_binding{"gpu_skinny_gemm", gemm<ops::GemmOp>};

const BindSchedule<Pooling, ops::PoolingOp> pooling_binding{
    "gpu_direct", [](Pooling &a, const ops::PoolingOp &op, const Target &t) { schedule_pooling(a, op.shape, t); }};
const BindSchedule<Pad, ops::PadOp> pad_binding{
    "gpu_direct", [](Pad &a, const ops::PadOp &op, const Target &t) { schedule_pad(a, op.shape, t); }};
const BindSchedule<LRN, ops::LRNOp> lrn_binding{
    "gpu_direct", [](LRN &a, const ops::LRNOp &op, const Target &t) { schedule_lrn(a, op.shape, t); }};
const BindSchedule<Softmax, ops::SoftmaxOp> softmax_binding{
    "gpu_direct", [](Softmax &a, const ops::SoftmaxOp &op, const Target &t) { schedule_softmax(a, op.shape, t); }};
const BindSchedule<Concat, ops::ConcatOp> concat_binding{
    "gpu_direct", [](Concat &a, const ops::ConcatOp &op, const Target &t) { schedule_concat(a, op.shape, t); }};
const BindSchedule<Rearrange, ops::RearrangeOp> rearrange_binding{
    "gpu_direct",
    [](Rearrange &a, const ops::RearrangeOp &op, const Target &t) { schedule_rearrange(a, op.shape, t); }};
const BindSchedule<Resize, ops::ResizeOp> resize_binding{
    "gpu_direct", [](Resize &a, const ops::ResizeOp &op, const Target &t) { schedule_resize(a, op.shape, t); }};
const BindSchedule<Deconv2d, ops::Deconv2dOp> deconv2d_binding{
    "gpu_direct", [](Deconv2d &a, const ops::Deconv2dOp &op, const Target &t) { schedule_deconv2d(a, op.shape, t); }};

template <typename OpT>
void flat(FlatOutput &a, const OpT &op, const Target &t) {
    schedule_flat(a.output, a.i, op.shape.count, t);
}
const BindSchedule<FlatOutput, ops::ReluOp> relu_binding{"gpu_direct", flat<ops::ReluOp>};
const BindSchedule<FlatOutput, ops::ActivationOp> activation_binding{"gpu_direct", flat<ops::ActivationOp>};
const BindSchedule<FlatOutput, ops::EltwiseOp> eltwise_binding{"gpu_direct", flat<ops::EltwiseOp>};
const BindSchedule<ChannelAffine, ops::ChannelAffineOp> channel_affine_binding{
    "gpu_direct", [](ChannelAffine &a, const ops::ChannelAffineOp &op, const Target &t) {
        schedule_channel_affine(a, op.shape.inner, op.shape.channels, op.shape.outer, t);
    }};

}  // namespace
}  // namespace cortado::schedules::gpu
