// CPU schedule (x86 and ARM, in the target's vector width) for pooling: vectorised over output x,
// parallel over channel planes. Memory-bound.
#pragma once

#include <algorithm>

#include "generators/pooling.h"
#include "schedules/cpu/row_vector.h"

namespace cortado::schedules::cpu {

// One window per plane (global pooling, GoogLeNet's and NiN's last pools): planes of 36 or 49
// values are too small to vectorise within, so the lanes take channels instead.
inline bool pools_whole_planes(const PoolingShape &s, const Halide::Target &target) {
    return s.out_w == 1 && s.out_h == 1 && s.channels >= target.natural_vector_size<float>();
}

// Clamped rows load plainly only in vectors clear of both edges: stride-1 rows narrower than
// three vectors (GoogLeNet's 28- and 14-wide inception pools) have none, and are framed instead.
// Wider rows are clamped, where the frame would be one more pass over a large plane.
inline MaxPoolingForm max_pooling_form(const PoolingShape &s, const Halide::Target &target) {
    if (pools_whole_planes(s, target)) return MaxPoolingForm::Window;
    const bool narrow = s.stride_w == 1 && s.in_w < 3 * target.natural_vector_size<float>();
    return supported_max_pooling_form(s, narrow ? MaxPoolingForm::FramedPlane : MaxPoolingForm::ClampedRows);
}

// A channel-blocked input or output: the lanes take one block of channels, which both layouts
// store contiguously at a pixel, and the window (the Window form) is summed per vector of them.
// A blocked output is stored a pixel's block at a time; an NCHW one scatters the lanes across
// planes (a 1x1 output, global pooling's, is contiguous either way).
inline void schedule_blocked_pooling(Pooling &a, const PoolingShape &s) {
    using namespace Halide;
    const int block = std::max(a.input_block, a.output_block);
    Var task{"task"}, l{"l"}, xo{"xo"}, co{"co"}, ci{"ci"};
    Func window = a.window_reduction(s);
    if (a.output_block > 0) {
        // (b·x + lane, y, block, n): rows of one block are the parallel tasks, so that batch 1
        // with few blocks still has many.
        a.output.split(a.x, xo, l, block).vectorize(l).fuse(a.y, a.c, task).fuse(task, a.n, task).parallel(task);
        window.compute_at(a.output, xo).vectorize(a.c, block);
    } else {
        a.output.split(a.c, co, ci, block).reorder(ci, a.x, a.y, co, a.n).vectorize(ci);
        a.output.fuse(co, a.n, task).parallel(task);
        window.compute_at(a.output, a.x).vectorize(a.c, block);
    }
    Stage taps = window.update().vectorize(a.c, block);
    if (s.kernel_w * s.kernel_h <= 25) taps.unroll(a.r.x).unroll(a.r.y);
}

inline void schedule_pooling(Pooling &a, const PoolingShape &s, const Halide::Target &target) {
    using namespace Halide;
    if (a.input_block > 0 || a.output_block > 0) return schedule_blocked_pooling(a, s);
    if (pools_whole_planes(s, target)) {
        // The lanes' loads are gathers, one cache line per channel, each line read whole by the
        // window's taps that follow.
        const int lanes = target.natural_vector_size<float>();
        Var block{"block"}, task{"task"};
        a.output.split(a.c, block, a.c, lanes, TailStrategy::ShiftInwards).reorder(a.c, a.x, a.y, block, a.n);
        a.output.fuse(block, a.n, task).parallel(task).vectorize(a.c);
        Func window = a.window_reduction(s);
        window.compute_at(a.output, a.c).vectorize(a.c);
        window.update().vectorize(a.c);
        return;
    }
    const int vec = row_vector(s.out_w, target);
    const bool vectorized = s.out_w >= vec;
    Var plane{"plane"};
    a.output.fuse(a.c, a.n, plane).parallel(plane);
    if (vectorized) a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
    if (a.max_form == MaxPoolingForm::FramedPlane) {
        // A plane in its frame stays in L1 or L2; the fill and the copy are plain vector stores.
        const int framed_w = std::max(s.in_w, (s.out_w - 1) * s.stride_w + s.kernel_w);
        const Var frame_x = a.framed.args()[0];
        a.framed.compute_at(a.output, plane).vectorize(frame_x, row_vector(framed_w, target), TailStrategy::RoundUp);
        a.framed.update().vectorize(a.image.x, row_vector(s.in_w, target), TailStrategy::GuardWithIf);
        // One row of column maxima per output row, read from L1 by the taps across.
        a.column_max.compute_at(a.output, a.y).vectorize(a.x, row_vector(framed_w, target), TailStrategy::RoundUp);
        return;
    }
    if (a.max_form == MaxPoolingForm::ClampedRows) {
        // One row of column maxima per output row, read from L1 by the (strided) taps across. The
        // columns run from 0 to the last window's end, which rounding down can leave short of the
        // image's; a vector shifted inwards must fit in them, or it would read left of the image.
        const int columns = std::min(s.in_w, (s.out_w - 1) * s.stride_w - s.pad_w + s.kernel_w);
        const int column_vec = row_vector(columns, target);
        a.column_max.compute_at(a.output, a.y);
        if (columns >= column_vec) a.column_max.vectorize(a.x, column_vec, TailStrategy::ShiftInwards);
        return;
    }
    // Input rows are staged with their fill once per plane, sliding down the rows as the window
    // does: the window's taps are then plain (strided) vector loads, where reading through the
    // bounds test gathers every vector that touches the right edge.
    a.padded.compute_at(a.output, a.y).store_at(a.output, plane);
    const int padded_w = (s.out_w - 1) * s.stride_w + s.kernel_w;
    if (padded_w >= vec) a.padded.vectorize(a.x, vec, TailStrategy::ShiftInwards);
    const bool unrolled = s.kernel_w * s.kernel_h <= 25;
    Func window = a.window_reduction(s);
    window.compute_at(a.output, vectorized ? a.x : a.y);
    if (vectorized) window.vectorize(a.x);
    Stage taps = window.update();
    if (vectorized) taps.vectorize(a.x);
    if (unrolled) taps.unroll(a.r.x).unroll(a.r.y);
}

}  // namespace cortado::schedules::cpu
