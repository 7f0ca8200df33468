// CPU schedules (x86 and ARM, in the target's vector width) for the element-wise ops: vectorised,
// split into parallel chunks large enough to amortise the thread-pool dispatch. Memory-bound.
#pragma once

#include "generators/elementwise.h"

namespace cortado::schedules::cpu {

inline void schedule_flat(Halide::Func output, Halide::Var i, int count, const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    constexpr int kChunk = 1 << 14;
    Var chunk{"chunk"}, inside{"inside"};
    if (count >= 2 * kChunk) output.split(i, chunk, inside, kChunk, TailStrategy::ShiftInwards).parallel(chunk);
    if (count >= vec) output.vectorize(count >= 2 * kChunk ? inside : i, vec, TailStrategy::ShiftInwards);
}

// A channel-blocked tensor: the lanes take a block of channels (one vector, contiguous in the
// input) and its scale and shift are vector loads; an NCHW output from blocks scatters the lanes
// across planes.
inline void schedule_channel_affine(ChannelAffine &a, int inner, int channels, int outer,
                                    const Halide::Target &target) {
    using namespace Halide;
    const int vec = target.natural_vector_size<float>();
    Var plane{"plane"}, xo{"xo"}, xi{"xi"}, co{"co"}, ci{"ci"};
    if (a.output_block > 0) {
        a.output.split(a.x, xo, xi, a.output_block).vectorize(xi);
        a.output.fuse(a.c, a.o, plane).parallel(plane, channels / a.output_block * outer >= 64 ? 8 : 1);
        return;
    }
    if (a.input_block > 0) {
        a.output.split(a.c, co, ci, a.input_block).reorder(ci, a.x, co, a.o).vectorize(ci);
        a.output.fuse(co, a.o, plane).parallel(plane);
        return;
    }
    a.output.fuse(a.c, a.o, plane).parallel(plane, channels * outer >= 64 ? 8 : 1);
    if (inner >= vec) a.output.vectorize(a.x, vec, TailStrategy::ShiftInwards);
}

}  // namespace cortado::schedules::cpu
