// The GPU schedule of the half-precision convolution (generators/conv2d_fp16.h; knobs and
// default rule in conv2d_fp16_space.h). As the int8 one (conv2d_int8.h): a thread owns `cols`
// output channels (one packed panel) by `rows` consecutive pixels, the threads along the pixels
// innermost so that a warp shares its weight loads. The thread's fp32 sums and one chunk's half
// sums are both in registers; the half sums are vectors of `vector` output channels, which CUDA
// computes a pair at a time (fma.rn.f16x2) and loads the weights of in one instruction. The input is rounded to half by a kernel
// of its own.
#pragma once

#include "generators/conv2d_fp16.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

struct Fp16Tile {
    int rows, threads_q, threads_c, vector;
};

inline void schedule_conv2d_fp16(Conv2dFp16 &a, const ops::Conv2dShape &s, const Fp16Tile &t) {
    using namespace Halide;
    Var rows{"rows"}, xo{"xo"}, xi{"xi"};
    // The rows (y x channels x images) on the grid's x, which is not limited to 65535.
    a.staged.compute_root()
        .reorder(a.x, a.y, a.ci, a.n)
        .fuse(a.y, a.ci, rows)
        .fuse(rows, a.n, rows)
        .split(a.x, xo, xi, 32, TailStrategy::GuardWithIf)
        .reorder(xi, rows, xo)
        .gpu_blocks(rows, xo)
        .gpu_threads(xi);

    const Var qt =
        tile_panels_by_threads(a.output, a.q, a.c, a.n, a.width, t.rows, s.out_w * s.out_h, t.threads_q, t.threads_c);
    a.tile.compute_at(a.output, qt).bound(a.lane, 0, a.width).bound_extent(a.panel, 1).store_in(MemoryType::Register);
    a.tile.update().reorder(a.lane, a.q, a.chunks, a.n, a.panel);
    a.part.compute_at(a.tile, a.chunks).store_in(MemoryType::Register);
    a.part.update().reorder(a.lane, a.q, a.r.x, a.r.y, a.r.z, a.n, a.panel, a.chunk);
    for (Stage stage : {Stage(a.tile), a.tile.update()}) stage.unroll(a.lane).unroll(a.q);
    for (Stage stage : {Stage(a.part), a.part.update()}) {
        if (t.vector > 1 && a.width % t.vector == 0) stage.vectorize(a.lane, t.vector);
        stage.unroll(a.lane).unroll(a.q);
    }
    if (s.kernel_w <= 5) a.part.update().unroll(a.r.x);
}

}  // namespace cortado::schedules::gpu
