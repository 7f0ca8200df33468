// The CPU schedule of the channel-lanes convolution (generators/conv2d_channel_lanes.h): a
// register tile of one panel of output channels (whole vectors) by `pixels` consecutive output
// pixels of an image (across rows), summed over the whole (kx, ky, ci) reduction in registers.
// Per reduction step the tile loads the panel's weight vectors (contiguous in the packed panel)
// and broadcasts `pixels` inputs. Parallel tasks are one panel of channels by
// `task_tiles` consecutive pixel tiles, so a batch-1 layer still has many tasks, and each task
// streams one panel of weights. The padded input is materialised once so inner loads are
// unguarded; or, `per_task` (the depthwise layers, memory-bound), each task stages the strip of
// it that its tiles read, which stays in L2 and costs no second pass over memory. An NCHW output
// holds a tile's pixels of one channel consecutively: `pixel_stores` writes them as one vector
// per channel (gathered from the tile's spilled registers), else each pixel on its own.
#pragma once

#include <algorithm>
#include <vector>

#include "generators/conv2d_channel_lanes.h"
#include "schedules/cpu/padded_input.h"

namespace cortado::schedules::cpu {

// An NCHW output (q, c, n, unit) of a channel-lanes tile: tiles of `pixels` pixels by a panel of
// `width` channels, tasks of `task_tiles` tiles of one panel and image, stored a vector of pixels
// per channel (`pixel_stores`) or pixel by pixel. Returns the loop the tile is computed at.
inline Halide::Var split_channel_lanes_output(Halide::Func output, Halide::Var q, Halide::Var c, Halide::Var n,
                                              int width, int pixels, int task_tiles, bool pixel_stores) {
    using namespace Halide;
    Var qo{"qo"}, qi{"qi"}, qt{"qt"}, co{"co"}, ci{"ci"}, task{"task"};
    output.split(q, qo, qi, pixels, TailStrategy::ShiftInwards)
        .split(c, co, ci, width, TailStrategy::GuardWithIf)
        .reorder(ci, qi, qo, co)
        .split(qo, qt, qo, task_tiles, TailStrategy::GuardWithIf)
        .reorder(ci, qi, qo, qt, co, n)
        .fuse(qt, co, task)
        .fuse(task, n, task)
        .parallel(task);
    if (pixel_stores) output.reorder(qi, ci, qo).vectorize(qi);
    else output.unroll(qi);
    return qo;
}

inline void schedule_conv2d_channel_lanes(Conv2dChannelLanes &a, const Conv2dShape &s, const Halide::Target &target,
                                          int pixels, int task_tiles, bool pixel_stores, bool per_task = false) {
    using namespace Halide;
    const int lanes = target.natural_vector_size<float>();
    pixels = std::min(pixels, s.out_w * s.out_h);
    // The loops of the output's split, by name (split_channel_lanes_output names them alike).
    Var qo{"qo"}, task{"task"};
    if (a.output_block > 0) {
        // A blocked output: the same tasks and tiles, each tile stored as whole vectors of its
        // panel's blocks (ci), pixel after pixel (qi).
        Var q{"q"}, l{"l"}, qi{"qi"}, qt{"qt"}, co{"co"}, ci{"ci"};
        a.output.split(a.v, q, l, a.output_block)
            .split(q, qo, qi, pixels, TailStrategy::ShiftInwards)
            .split(a.block, co, ci, a.width / a.output_block, TailStrategy::GuardWithIf)
            .reorder(l, qi, ci, qo, co)
            .split(qo, qt, qo, task_tiles, TailStrategy::GuardWithIf)
            .reorder(l, qi, ci, qo, qt, co, a.n)
            .fuse(qt, co, task)
            .fuse(task, a.n, task)
            .parallel(task)
            .vectorize(l)
            .unroll(qi)
            .unroll(ci);
    } else {
        qo = split_channel_lanes_output(a.output, a.q, a.c, a.n, a.width, pixels, task_tiles, pixel_stores);
    }
    // Lanes that each read their own channel (depthwise) from blocks narrower than a vector
    // compute in vectors of one block, so that every load is a whole block.
    const int vector = a.padded_block > 0 && a.padded_block < lanes && per_task ? a.padded_block : lanes;
    if (per_task) {
        const std::vector<Var> args = a.padded.args();
        a.padded.compute_at(a.output, task).vectorize(args[0], vector);
    } else if ((s.pad_h > 0 || s.pad_w > 0) && a.input_block > 0) {
        schedule_blocked_padded_input(a.padded, lanes);
    } else if (s.pad_h > 0 || s.pad_w > 0) {
        schedule_padded_input(a.padded, lanes);
    }
    // The tile's accumulators live in registers: every loop over the tile is unrolled or
    // vectorised. Its lanes are bounded to the whole panel, also in the last, partial one.
    a.tile.compute_at(a.output, qo)
        .bound(a.lane, 0, a.width)
        .bound_extent(a.panel, 1)
        .store_in(MemoryType::Register)
        .vectorize(a.lane, vector)
        .unroll(a.lane)
        .unroll(a.q);
    a.tile.update()
        .reorder(a.lane, a.q, a.r.x, a.r.y, a.r.z, a.n, a.panel)
        .vectorize(a.lane, vector)
        .unroll(a.lane)
        .unroll(a.q);
}

}  // namespace cortado::schedules::cpu
