// The Hexagon HVX family's variants bound to their schedule functions
// (generators/schedule_registry.h).
#include "generators/concat.h"
#include "generators/conv2d.h"
#include "generators/conv2d_int8.h"
#include "generators/conv2d_pool.h"
#include "generators/deconv2d.h"
#include "generators/elementwise.h"
#include "generators/inner_product.h"
#include "generators/lrn.h"
#include "generators/pad.h"
#include "generators/pooling.h"
#include "generators/rearrange.h"
#include "generators/resize.h"
#include "generators/schedule_registry.h"
#include "generators/softmax.h"
#include "schedules/hvx/conv2d.h"
#include "schedules/hvx/conv2d_int8.h"
#include "schedules/hvx/conv2d_int8_space.h"
#include "schedules/hvx/conv2d_pool.h"
#include "schedules/hvx/deconv2d.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado::schedules::hvx {
namespace {

using Halide::Target;

const BindSchedule<Conv2d, ops::Conv2dOp> conv2d_binding{
    "hvx_register_tile", [](Conv2d &a, const ops::Conv2dOp &op, const Target &t) { schedule_conv2d(a, op.shape, t); }};
const BindSchedule<Conv2dInt8, ops::Conv2dInt8Op> conv2d_int8_binding{
    kInt8ChannelLanes, [](Conv2dInt8 &a, const ops::Conv2dInt8Op &op, const Target &) {
        schedule_conv2d_int8(a, op.shape.conv, op.choice.knobs.get("rows"));
    }};
const BindSchedule<Conv2dPool, ops::Conv2dPoolOp> conv2d_pool_binding{
    "hvx_conv_pool_rows",
    [](Conv2dPool &a, const ops::Conv2dPoolOp &op, const Target &t) { schedule_conv2d_pool(a, op.shape, t); }};
const BindSchedule<InnerProduct, ops::InnerProductOp> inner_product_binding{
    "hvx_lane_partials",
    [](InnerProduct &a, const ops::InnerProductOp &op, const Target &t) { schedule_inner_product(a, op.shape, t); }};
const BindSchedule<Pooling, ops::PoolingOp> pooling_binding{
    "hvx_direct", [](Pooling &a, const ops::PoolingOp &op, const Target &t) { schedule_pooling(a, op.shape, t); }};
const BindSchedule<Pad, ops::PadOp> pad_binding{
    "hvx_direct", [](Pad &a, const ops::PadOp &op, const Target &t) { schedule_pad(a, op.shape, t); }};
const BindSchedule<LRN, ops::LRNOp> lrn_binding{
    "hvx_direct", [](LRN &a, const ops::LRNOp &op, const Target &t) { schedule_lrn(a, op.shape, t); }};
const BindSchedule<Softmax, ops::SoftmaxOp> softmax_binding{
    "hvx_direct", [](Softmax &a, const ops::SoftmaxOp &op, const Target &t) { schedule_softmax(a, op.shape, t); }};
const BindSchedule<Concat, ops::ConcatOp> concat_binding{
    "hvx_direct", [](Concat &a, const ops::ConcatOp &op, const Target &t) { schedule_concat(a, op.shape, t); }};
const BindSchedule<Rearrange, ops::RearrangeOp> rearrange_binding{
    "hvx_direct",
    [](Rearrange &a, const ops::RearrangeOp &op, const Target &t) { schedule_rearrange(a, op.shape, t); }};
const BindSchedule<Resize, ops::ResizeOp> resize_binding{
    "hvx_direct", [](Resize &a, const ops::ResizeOp &op, const Target &t) { schedule_resize(a, op.shape, t); }};
const BindSchedule<Deconv2d, ops::Deconv2dOp> deconv2d_binding{
    "hvx_direct", [](Deconv2d &a, const ops::Deconv2dOp &op, const Target &t) { schedule_deconv2d(a, op.shape, t); }};

template <typename OpT>
void flat(FlatOutput &a, const OpT &op, const Target &t) {
    schedule_flat(a.output, a.i, op.shape.count, t);
}
const BindSchedule<FlatOutput, ops::ReluOp> relu_binding{"hvx_direct", flat<ops::ReluOp>};
const BindSchedule<FlatOutput, ops::ActivationOp> activation_binding{"hvx_direct", flat<ops::ActivationOp>};
const BindSchedule<FlatOutput, ops::EltwiseOp> eltwise_binding{"hvx_direct", flat<ops::EltwiseOp>};
const BindSchedule<ChannelAffine, ops::ChannelAffineOp> channel_affine_binding{
    "hvx_direct", [](ChannelAffine &a, const ops::ChannelAffineOp &op, const Target &t) {
        schedule_channel_affine(a, op.shape.inner, op.shape.channels, op.shape.outer, t);
    }};

}  // namespace
}  // namespace cortado::schedules::hvx
