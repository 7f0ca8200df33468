// The GPU schedule of the int8 convolution (generators/conv2d_int8.h; knobs and default rule in
// conv2d_int8_space.h). A thread owns one panel of `cols` output channels (their weights one
// contiguous run per reduction step) by `rows` consecutive pixels, its 32-bit sums in registers;
// each reduction step's four byte products per sum are one atomic, vectorised reduction over the
// word, which Halide turns into `dp4a` on CUDA (u8 x s8) and into byte multiplies and adds on
// OpenCL. The threads along the pixels are the innermost, so a warp shares its weight loads (one
// broadcast) and reads consecutive words of the staged input. The input is quantized by a kernel
// of its own, one 4-byte word (four channels) per store.
#pragma once

#include "generators/conv2d_int8.h"
#include "schedules/conv2d_int8_tile.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

struct Int8Tile {
    int rows, threads_q, threads_c;
};

inline void schedule_conv2d_int8(Conv2dInt8 &a, const ops::Conv2dShape &s, const Int8Tile &t) {
    using namespace Halide;
    Var rows{"rows"}, xo{"xo"}, xi{"xi"};
    // The innermost block loop is the grid's x: the rows (y x words x images, 71680 in ResNet-50's
    // res2 at batch 20) go there, as the grid's y is limited to 65535.
    a.quantized.compute_root()
        .bound(a.within, 0, ops::kInt8ChannelsPerWord)
        .reorder(a.within, a.x, a.y, a.word, a.n)
        .fuse(a.y, a.word, rows)
        .fuse(rows, a.n, rows)
        .split(a.x, xo, xi, 32, TailStrategy::GuardWithIf)
        .reorder(a.within, xi, rows, xo)
        .gpu_blocks(rows, xo)
        .gpu_threads(xi)
        .vectorize(a.within);

    const Var qt =
        tile_panels_by_threads(a.output, a.q, a.c, a.n, a.width, t.rows, s.out_w * s.out_h, t.threads_q, t.threads_c);
    schedule_int8_register_tile(a, a.output, qt, 0);
    if (s.kernel_w <= 5) a.tile.update().unroll(a.r[1]);
}

}  // namespace cortado::schedules::gpu
