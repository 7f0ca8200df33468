// Hexagon HVX schedules for the memory-bound ops (pooling, pad, resize, LRN, softmax, concat,
// rearrange, element-wise):
// each offloaded whole to the DSP, parallel over its outer loop, vectorised 32 floats wide along
// the innermost dimension where it is long enough. Compile-verified only.
#pragma once

#include "generators/concat.h"
#include "generators/elementwise.h"
#include "generators/inner_product.h"
#include "generators/lrn.h"
#include "generators/pad.h"
#include "generators/pooling.h"
#include "generators/rearrange.h"
#include "generators/resize.h"
#include "generators/softmax.h"
#include "schedules/hvx/offload.h"

namespace cortado::schedules::hvx {

inline void schedule_pooling(Pooling &a, const PoolingShape &s, const Halide::Target &) {
    Halide::Var plane{"plane"};
    a.output.hexagon().fuse(a.c, a.n, plane).parallel(plane);
    vectorize_if_long(a.output, a.x, s.out_w);
    if (s.average) {
        // Per vector of outputs: its extent is the vector's, so it vectorises whole.
        a.window_sum.compute_at(a.output, a.x);
        if (s.out_w >= kFloatLanes) {
            a.window_sum.vectorize(a.x);
            a.window_sum.update().vectorize(a.x);
        }
    }
}

inline void schedule_pad(Pad &a, const PadShape &s, const Halide::Target &) {
    Halide::Var plane{"plane"};
    a.output.hexagon().fuse(a.c, a.n, plane).parallel(plane);
    vectorize_if_long(a.output, a.x, s.out_w());
}
inline void schedule_resize(Resize &a, const ResizeShape &s, const Halide::Target &) {
    Halide::Var plane{"plane"};
    a.output.hexagon().fuse(a.c, a.n, plane).parallel(plane);
    vectorize_if_long(a.output, a.x, s.out_w);
}

inline void schedule_lrn(LRN &a, const LRNShape &s, const Halide::Target &) {
    a.output.hexagon().reorder(a.x, a.y, a.c, a.n).parallel(a.c);
    vectorize_if_long(a.output, a.x, s.w);
    a.window_sum.compute_at(a.output, a.c);
    vectorize_if_long(a.window_sum, a.x, s.w);
    if (s.w >= kFloatLanes) a.window_sum.update().vectorize(a.x, kFloatLanes, Halide::TailStrategy::GuardWithIf);
}

inline void schedule_softmax(Softmax &a, const SoftmaxShape &s, const Halide::Target &) {
    a.output.hexagon().parallel(a.o);
    a.partial_max.compute_at(a.output, a.o);
    a.max_value.compute_at(a.output, a.o);
    a.exponent.compute_at(a.output, a.o);
    a.total.compute_at(a.output, a.o);
    vectorize_if_long(a.output, a.x, s.inner);
}

inline void schedule_concat(Concat &a, const ConcatShape &s, const Halide::Target &) {
    a.output.hexagon();
    for (size_t i = 0; i < a.slices.size(); i++) {
        Halide::Stage update = a.output.update(static_cast<int>(i));
        // Each input writes a disjoint slice of the output, so its loops may run in parallel.
        update.hexagon().allow_race_conditions().parallel(a.slices[i].z);
        if (s.inner >= kFloatLanes) update.vectorize(a.slices[i].x, kFloatLanes, Halide::TailStrategy::GuardWithIf);
    }
}

// Rearrange: the outer axes fused and parallel, the innermost vectorised where long enough.
inline void schedule_rearrange(Rearrange &a, const RearrangeShape &s, const Halide::Target &) {
    Halide::Var outer = a.axes[1];
    for (int d = 2; d < ops::kRearrangeAxes; d++) {
        Halide::Var fused{"outer" + std::to_string(d)};
        a.output.fuse(outer, a.axes[d], fused);
        outer = fused;
    }
    a.output.hexagon().parallel(outer);
    vectorize_if_long(a.output, a.axes[0], s.extents[0]);
}

inline void schedule_flat(Halide::Func output, Halide::Var i, int count, const Halide::Target &) {
    using namespace Halide;
    constexpr int kChunk = 1 << 14;
    Var chunk{"chunk"}, inside{"inside"};
    output.hexagon();
    if (count >= 2 * kChunk) output.split(i, chunk, inside, kChunk, TailStrategy::ShiftInwards).parallel(chunk);
    vectorize_if_long(output, count >= 2 * kChunk ? inside : i, count);
}

inline void schedule_channel_affine(ChannelAffine &a, int inner, int, int, const Halide::Target &) {
    Halide::Var plane{"plane"};
    a.output.hexagon().fuse(a.c, a.o, plane).parallel(plane);
    vectorize_if_long(a.output, a.x, inner);
}

// InnerProduct: partial sums one per HVX lane (hvx/space.h asks for 32 lanes), each
// weight vector loaded once for every row m, parallel over blocks of outputs.
inline void schedule_inner_product(InnerProduct &a, const InnerProductShape &s, const Halide::Target &) {
    using namespace Halide;
    Var jo{"jo"}, ji{"ji"};
    a.output.hexagon()
        .split(a.j, jo, ji, s.outputs >= 16 ? 16 : s.outputs, TailStrategy::GuardWithIf)
        .reorder(a.m, ji, jo)
        .parallel(jo);
    a.partial.compute_at(a.output, ji).vectorize(a.lane);
    if (s.inputs >= a.lanes) a.partial.update().reorder(a.lane, a.m, a.whole).vectorize(a.lane);
}

}  // namespace cortado::schedules::hvx
