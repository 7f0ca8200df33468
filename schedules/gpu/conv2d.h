// GPU schedule for conv2d (CUDA, OpenCL): each thread owns a register tile of 4 output
// channels x 4 output rows at one x; a block is 32 x-positions by 8 channel groups
// (256 threads, 32 channels x 4 rows x 32 columns). The reduction over (kx, ky, ci) runs in
// registers; inputs and weights come through the L1/texture cache. The padded input is
// materialised once per call by its own kernel.
#pragma once

#include "generators/conv2d.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_conv2d(Conv2d &a, const Conv2dShape &s, const Halide::Target &) {
    using namespace Halide;
    const int rows = fitting(4, s.out_h), channels = fitting(4, s.out_channels);
    const int threads_x = fitting(32, s.out_w);
    const int threads_c = fitting(8, (s.out_channels + channels - 1) / channels);
    Var xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"}, co{"co"}, ci{"ci"}, cb{"cb"}, ct{"ct"}, block{"block"};

    if (s.pad_h > 0 || s.pad_w > 0) {
        a.padded.compute_root();
        tile_2d(a.padded, a.x, a.y, s.in_w + 2 * s.pad_w, s.in_h + 2 * s.pad_h, a.c, a.n);
    }
    a.output.split(a.x, xo, xi, threads_x, TailStrategy::ShiftInwards)
        .split(a.y, yo, yi, rows, TailStrategy::ShiftInwards)
        .split(a.c, co, ci, channels, TailStrategy::ShiftInwards)
        .split(co, cb, ct, threads_c, TailStrategy::ShiftInwards)
        .reorder(yi, ci, xi, ct, xo, yo, cb, a.n)
        .fuse(cb, a.n, block)
        .gpu_blocks(xo, yo, block)
        .gpu_threads(xi, ct)
        .unroll(yi)
        .unroll(ci);
    a.conv.compute_at(a.output, xi)
        .store_in(MemoryType::Register)
        .unroll(a.x)
        .unroll(a.y)
        .unroll(a.c);
    a.conv.update()
        .reorder(a.x, a.y, a.c, a.r.x, a.r.y, a.r.z, a.n)
        .unroll(a.x)
        .unroll(a.y)
        .unroll(a.c);
    if (s.kernel_w <= 5) a.conv.update().unroll(a.r.x);
}

}  // namespace cortado::schedules::gpu
