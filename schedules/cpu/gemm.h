// CPU schedule for the GEMM (generators/gemm.h), BLIS-shaped:
// - C is cut into row_block x col_block tasks (times the batch), run in parallel on the cores;
// - within a task, K advances one k_block at a time; for each block, every register tile
//   (rows x cols of C: cols a whole number of vectors of b, rows broadcasts of a) is summed over
//   the block in registers, then added to the task's accumulator, which stays in cache;
// - the register tile's x loop is outside its y loop, so the k_block x cols panel of b stays
//   in L1 while the rows of a stream past it;
// - `pack` copies the task's k_block x col_block slice of b once per block, so that the panels
//   are read at a short stride whatever the leading dimension; operands packed at create time
//   skip it.
// The accumulator is rounded up to whole register tiles: the operand Funcs must be readable
// there (clamped, or zero-padded panels).
#pragma once

#include "generators/gemm.h"
#include "generators/ops/gemm.h"

namespace cortado::schedules::cpu {

inline void schedule_gemm(Gemm &g, const ops::GemmBlocking &k, const Halide::Target &target) {
    using namespace Halide;
    const int lanes = target.natural_vector_size<float>();
    Var xt{"xt"}, yt{"yt"}, xi{"xi"}, yi{"yi"}, xo{"xo"}, yo{"yo"}, task{"task"};

    // GuardWithIf keeps every task's first column a multiple of col_block, hence of cols: the
    // packed panels are then read at whole-panel offsets.
    g.output.split(g.x, xt, xi, k.col_block, TailStrategy::GuardWithIf)
        .split(g.y, yt, yi, k.row_block, TailStrategy::GuardWithIf)
        .reorder(xi, yi, xt, yt)
        .fuse(xt, yt, task);
    if (g.output.dimensions() > 2) g.output.fuse(task, g.n, task);
    g.output.parallel(task).vectorize(xi, lanes, TailStrategy::GuardWithIf);

    g.acc.compute_at(g.output, task).vectorize(g.x, lanes, TailStrategy::RoundUp);
    g.acc.update()
        .split(g.x, xo, xi, k.cols)
        .split(g.y, yo, yi, k.rows)
        .reorder(xi, yi, yo, xo, g.blocks)
        .vectorize(xi, lanes)
        .unroll(xi)
        .unroll(yi);

    g.block.compute_at(g.acc, yo).vectorize(g.x, lanes).unroll(g.x).unroll(g.y);
    g.block.update().reorder(g.x, g.y, g.r).vectorize(g.x, lanes).unroll(g.x).unroll(g.y);

    if (k.pack) g.b.in(g.block).compute_at(g.acc, g.blocks).vectorize(g.b.args()[0], lanes);
}

}  // namespace cortado::schedules::cpu
