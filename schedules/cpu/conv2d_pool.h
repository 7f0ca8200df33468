// The fused convolution and MAX pooling of the CPU families (cpu_conv_pool_rows; algorithm:
// generators/conv2d_pool.h): the pooled output in tasks of `rows` pooled rows by
// `channel_block` channels, parallel over the tasks. Each task computes the convolution's rows
// that its windows read, for its channels, with the register tile of cpu_register_tile
// (`channel_block` channels x `vectors_x` vectors of x), into a strip that stays in cache; then
// each pooled row takes its column maxima from the strip and the maxima across them. Rows shared
// with the task above are computed again.
#pragma once

#include <algorithm>

#include "generators/conv2d_pool.h"
#include "schedules/cpu/conv2d_register_tile.h"
#include "schedules/cpu/padded_input.h"
#include "schedules/cpu/row_vector.h"

namespace cortado::schedules::cpu {

inline void schedule_conv2d_pool(Conv2dPool &a, const Conv2dPoolShape &s, const Halide::Target &target,
                                 int channel_block, int vectors_x, int rows) {
    using namespace Halide;
    const Conv2dShape &cs = s.conv;
    const int vec = target.natural_vector_size<float>();
    channel_block = std::min(cs.out_channels, channel_block);
    rows = std::min(rows, s.pool_out_h);
    // The convolution's columns the windows read: the last window may end before the edge.
    const int columns = std::min(cs.out_w, (s.pool_out_w - 1) * s.pool_stride_w - s.pool_pad_w + s.pool_kernel_w);
    const int x_tile = columns >= vectors_x * vec ? vectors_x * vec : std::min(vec, columns);
    const int x_vector = std::min(vec, x_tile);
    const TailStrategy channel_tail =
        cs.out_channels % channel_block == 0 ? TailStrategy::RoundUp : TailStrategy::ShiftInwards;
    Var yo{"yo"}, yi{"yi"}, co{"co"}, ci{"ci"}, task{"task"}, xo{"xo"}, xi{"xi"}, cto{"cto"}, cti{"cti"};

    if (cs.pad_h > 0 || cs.pad_w > 0) schedule_padded_input(a.conv.padded, vec);
    a.output.split(a.y, yo, yi, rows, TailStrategy::ShiftInwards)
        .split(a.c, co, ci, channel_block, channel_tail)
        .reorder(a.x, ci, yi, yo, co, a.n)
        .fuse(yo, co, task)
        .fuse(task, a.n, task)
        .parallel(task);
    const int out_vector = row_vector(s.pool_out_w, target);
    if (s.pool_out_w >= out_vector) a.output.vectorize(a.x, out_vector, TailStrategy::ShiftInwards);
    // One row of column maxima per pooled row and channel, read from L1 by the taps across.
    a.column_max.compute_at(a.output, ci);
    const int column_vector = row_vector(columns, target);
    if (columns >= column_vector) a.column_max.vectorize(a.x, column_vector, TailStrategy::ShiftInwards);
    // The task's strip of the convolution, a register tile at a time (conv2d_register_tile.h).
    Func strip = a.conv.output;
    strip.compute_at(a.output, task)
        .split(a.x, xo, xi, x_tile, TailStrategy::ShiftInwards)
        .split(a.c, cto, cti, channel_block, channel_tail)
        .reorder(xi, cti, xo, a.y, cto, a.n)
        .vectorize(xi, x_vector);
    schedule_register_tile_sums(a.conv, strip, xo, x_vector);
}

}  // namespace cortado::schedules::cpu
