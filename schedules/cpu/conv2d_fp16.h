// The CPU schedule of the half-precision convolution (generators/conv2d_fp16.h): the
// channel-lanes schedule's tiles and tasks (conv2d_channel_lanes.h, split_channel_lanes_output),
// with a chunk's sums in registers beside the tile's fp32 sums. The half input is staged once
// per call, in parallel over its rows. On ARM64 with arm_fp16 the products and chunk sums are
// native half vector FMAs; elsewhere (`half` 0) they are fp32 FMAs of the halves converted as
// they are loaded, and what the variant saves is the memory its operands take.
#pragma once

#include <algorithm>

#include "generators/conv2d_fp16.h"
#include "schedules/cpu/conv2d_channel_lanes.h"

namespace cortado::schedules::cpu {

inline void schedule_conv2d_fp16(Conv2dFp16 &a, const ops::Conv2dShape &s, const Halide::Target &target, int pixels,
                                 int task_tiles, bool pixel_stores, bool half) {
    using namespace Halide;
    const int lanes = target.natural_vector_size<float>();
    pixels = std::min(pixels, s.out_w * s.out_h);
    const Var qo = split_channel_lanes_output(a.output, a.q, a.c, a.n, a.width, pixels, task_tiles, pixel_stores);

    Var rows{"rows"};
    a.staged.compute_root()
        .reorder(a.x, a.y, a.ci, a.n)
        .fuse(a.y, a.ci, rows)
        .fuse(rows, a.n, rows)
        .parallel(rows)
        .vectorize(a.x, lanes);

    a.tile.compute_at(a.output, qo).bound(a.lane, 0, a.width).bound_extent(a.panel, 1).store_in(MemoryType::Register);
    a.tile.update().reorder(a.lane, a.q, a.chunks, a.n, a.panel);
    a.part.compute_at(a.tile, a.chunks).store_in(MemoryType::Register);
    a.part.update().reorder(a.lane, a.q, a.r.x, a.r.y, a.r.z, a.n, a.panel, a.chunk);
    for (Stage stage : {Stage(a.tile), a.tile.update()}) stage.vectorize(a.lane, lanes).unroll(a.lane).unroll(a.q);
    // Half sums fill a vector register with twice the lanes, where the panel holds that many.
    const int part_lanes = half && a.width % (2 * lanes) == 0 ? 2 * lanes : lanes;
    for (Stage stage : {Stage(a.part), a.part.update()}) stage.vectorize(a.lane, part_lanes).unroll(a.lane).unroll(a.q);
}

}  // namespace cortado::schedules::cpu
