// The CPU family's variants bound to their schedule functions (generators/schedule_registry.h):
// each variant's knobs handed to its schedule. The x86 and ARM families offer these variants
// with their own knob defaults (x86/space.h, arm/space.h) and share these bindings.
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
#include "schedules/cpu/concat.h"
#include "schedules/cpu/conv2d_channel_lanes.h"
#include "schedules/cpu/conv2d_depthwise.h"
#include "schedules/cpu/conv2d_fp16.h"
#include "schedules/cpu/conv2d_fp16_space.h"
#include "schedules/cpu/conv2d_int8.h"
#include "schedules/cpu/conv2d_int8_space.h"
#include "schedules/cpu/conv2d_pool.h"
#include "schedules/cpu/conv2d_pool_space.h"
#include "schedules/cpu/conv2d_register_tile.h"
#include "schedules/cpu/conv2d_space.h"
#include "schedules/cpu/conv2d_winograd.h"
#include "schedules/cpu/deconv2d.h"
#include "schedules/cpu/elementwise.h"
#include "schedules/cpu/gemm.h"
#include "schedules/cpu/inner_product.h"
#include "schedules/cpu/lrn.h"
#include "schedules/cpu/pad.h"
#include "schedules/cpu/pooling.h"
#include "schedules/cpu/rearrange.h"
#include "schedules/cpu/resize.h"
#include "schedules/cpu/softmax.h"

namespace cortado::schedules::cpu {
namespace {

using Halide::Target;

void register_tile(Conv2d &a, const ops::Conv2dOp &op, const Target &t) {
    schedule_conv2d_register_tile(a, op.shape, t, op.choice.knobs.get("channel_block"),
                                  op.choice.knobs.get("vectors_x"));
}
const BindSchedule<Conv2d, ops::Conv2dOp> conv2d_register_tile_binding{"cpu_register_tile", register_tile};
const BindSchedule<Conv2d, ops::Conv2dOp> conv2d_depthwise_binding{
    kDepthwise, [](Conv2d &a, const ops::Conv2dOp &op, const Target &t) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_depthwise(a, op.shape, t, k.get("vectors_x"), k.get("rows"), k.get("task_rows"),
                                  k.get("task_planes"));
    }};
const BindSchedule<Conv2dChannelLanes, ops::Conv2dOp> conv2d_channel_lanes_binding{
    kChannelLanes, [](Conv2dChannelLanes &a, const ops::Conv2dOp &op, const Target &t) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_channel_lanes(a, op.shape, t, k.get("rows"), k.get("task_tiles"), k.get("pixel_stores"));
    }};
const BindSchedule<Conv2dInt8, ops::Conv2dInt8Op> conv2d_int8_channel_lanes_binding{
    kInt8ChannelLanes, [](Conv2dInt8 &a, const ops::Conv2dInt8Op &op, const Target &t) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_int8(a, op.shape.conv, t, k.get("rows"), k.get("task_tiles"), k.get("pixel_stores"), false);
    }};
const BindSchedule<Conv2dInt8, ops::Conv2dInt8Op> conv2d_int8_pair_sums_binding{
    kInt8PairSums, [](Conv2dInt8 &a, const ops::Conv2dInt8Op &op, const Target &t) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_int8(a, op.shape.conv, t, k.get("rows"), k.get("task_tiles"), k.get("pixel_stores"), true);
    }};
const BindSchedule<Conv2dPool, ops::Conv2dPoolOp> conv2d_pool_binding{
    kConvPoolRows, [](Conv2dPool &a, const ops::Conv2dPoolOp &op, const Target &t) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_pool(a, op.shape, t, k.get("channel_block"), k.get("vectors_x"), k.get("rows"));
    }};
const BindSchedule<Conv2dFp16, ops::Conv2dFp16Op> conv2d_fp16_channel_lanes_binding{
    kFp16ChannelLanes, [](Conv2dFp16 &a, const ops::Conv2dFp16Op &op, const Target &t) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_fp16(a, op.shape.conv, t, k.get("rows"), k.get("task_tiles"), k.get("pixel_stores"),
                             k.get("half"));
    }};
const BindSchedule<Conv2dChannelLanes, ops::Conv2dOp> conv2d_depthwise_channel_lanes_binding{
    kDepthwiseChannelLanes, [](Conv2dChannelLanes &a, const ops::Conv2dOp &op, const Target &t) {
        const ops::Knobs &k = op.choice.knobs;
        schedule_conv2d_channel_lanes(a, op.shape, t, k.get("rows"), k.get("task_tiles"), k.get("pixel_stores"), true);
    }};

// Channels in the lanes write C transposed (ops::ConvGemmForm).
void conv2d_gemm(Gemm &g, const ops::Conv2dOp &op, const Target &t) {
    schedule_gemm(g, ops::GemmBlocking::from(op.choice.knobs), t,
                  op.choice.form.is_conv_gemm(ops::ConvGemmForm::ChannelLanes));
}
const BindSchedule<Gemm, ops::Conv2dOp> conv2d_gemm_fc_binding{"cpu_gemm_fully_connected", conv2d_gemm};
const BindSchedule<Gemm, ops::Conv2dOp> conv2d_gemm_1x1_binding{"cpu_gemm_1x1", conv2d_gemm};
const BindSchedule<Gemm, ops::Conv2dOp> conv2d_gemm_channels_binding{"cpu_gemm_1x1_channel_lanes", conv2d_gemm};

void winograd(Conv2dWinograd &a, const ops::Conv2dOp &op, const Target &t) {
    const ops::Knobs &k = op.choice.knobs;
    schedule_conv2d_winograd(a, ops::GemmBlocking::from(k), t, k.has("batch_chunk") ? k.get("batch_chunk") : 0);
}
const BindSchedule<Conv2dWinograd, ops::Conv2dOp> winograd_f2_binding{"cpu_winograd_f2", winograd};
const BindSchedule<Conv2dWinograd, ops::Conv2dOp> winograd_f4_binding{"cpu_winograd_f4", winograd};
const BindSchedule<Conv2dWinograd, ops::Conv2dOp> winograd_f2_5x5_binding{"cpu_winograd_f2_5x5", winograd};

const BindSchedule<InnerProduct, ops::InnerProductOp> inner_product_binding{
    "cpu_lane_partials",
    [](InnerProduct &a, const ops::InnerProductOp &op, const Target &t) { schedule_inner_product(a, op.shape, t); }};
const BindSchedule<Gemm, ops::InnerProductOp> inner_product_gemm_binding{
    "cpu_gemm", [](Gemm &g, const ops::InnerProductOp &op, const Target &t) {
        schedule_gemm(g, ops::GemmBlocking::from(op.choice.knobs), t);
    }};
const BindSchedule<Gemm, ops::GemmOp> gemm_binding{"cpu_gemm", [](Gemm &g, const ops::GemmOp &op, const Target &t) {
                                                       schedule_gemm(g, ops::GemmBlocking::from(op.choice.knobs), t);
                                                   }};

const Bind<MaxPoolingFormRule> max_pooling_form_binding{"cpu_direct", max_pooling_form};
const BindSchedule<Pooling, ops::PoolingOp> pooling_binding{
    "cpu_direct", [](Pooling &a, const ops::PoolingOp &op, const Target &t) { schedule_pooling(a, op.shape, t); }};
const BindSchedule<Pad, ops::PadOp> pad_binding{
    "cpu_direct", [](Pad &a, const ops::PadOp &op, const Target &t) { schedule_pad(a, op.shape, t); }};
const BindSchedule<LRN, ops::LRNOp> lrn_binding{
    "cpu_direct", [](LRN &a, const ops::LRNOp &op, const Target &t) { schedule_lrn(a, op.shape, t); }};
const BindSchedule<Softmax, ops::SoftmaxOp> softmax_binding{
    "cpu_direct", [](Softmax &a, const ops::SoftmaxOp &op, const Target &t) { schedule_softmax(a, op.shape, t); }};
const BindSchedule<Concat, ops::ConcatOp> concat_binding{
    "cpu_direct", [](Concat &a, const ops::ConcatOp &op, const Target &t) { schedule_concat(a, op.shape, t); }};
const BindSchedule<Rearrange, ops::RearrangeOp> rearrange_binding{
    "cpu_direct",
    [](Rearrange &a, const ops::RearrangeOp &op, const Target &t) { schedule_rearrange(a, op.shape, t); }};
const BindSchedule<Resize, ops::ResizeOp> resize_binding{
    "cpu_direct", [](Resize &a, const ops::ResizeOp &op, const Target &t) { schedule_resize(a, op.shape, t); }};
const BindSchedule<Deconv2d, ops::Deconv2dOp> deconv2d_binding{
    "cpu_direct", [](Deconv2d &a, const ops::Deconv2dOp &op, const Target &t) { schedule_deconv2d(a, op.shape, t); }};

template <typename OpT>
void flat(FlatOutput &a, const OpT &op, const Target &t) {
    schedule_flat(a.output, a.i, op.shape.count, t);
}
const BindSchedule<FlatOutput, ops::ReluOp> relu_binding{"cpu_direct", flat<ops::ReluOp>};
const BindSchedule<FlatOutput, ops::ActivationOp> activation_binding{"cpu_direct", flat<ops::ActivationOp>};
const BindSchedule<FlatOutput, ops::EltwiseOp> eltwise_binding{"cpu_direct", flat<ops::EltwiseOp>};
const BindSchedule<ChannelAffine, ops::ChannelAffineOp> channel_affine_binding{
    "cpu_direct", [](ChannelAffine &a, const ops::ChannelAffineOp &op, const Target &t) {
        schedule_channel_affine(a, op.shape.inner, op.shape.channels, op.shape.outer, t);
    }};

}  // namespace
}  // namespace cortado::schedules::cpu
