// CPU schedule for the GEMM (generators/gemm.h), BLIS-shaped:
// - C is cut into row_block x col_block tasks (times the batch), run in parallel on the cores;
// - within a task, K advances one k_block at a time; for each block, every register tile
//   (rows x cols of C: cols a whole number of vectors of b, rows broadcasts of a) is summed over
//   the block in registers, then added to the task's accumulator, which stays in cache;
// - the register tile's x loop is outside its y loop, so the k_block x cols panel of b stays
//   in L1 while the rows of a stream past it;
// - when one block covers K, each register tile is written to the accumulator once;
// - a transposed C (stored y-innermost) is written from the accumulator along y, a
//   channel-blocked C (generators/gemm.h) in whole vectors of x; a channel-blocked C that one
//   block of K covers is stored from each register tile directly;
// - `pack` copies the task's k_block x col_block slice of b once per block, so that the panels
//   are read at a short stride whatever the leading dimension; operands packed at create time
//   skip it.
// Register tiles are computed whole, past the edges of C: the operand Funcs must be readable
// there (clamped, or zero-padded panels).
#pragma once

#include "generators/gemm.h"
#include "ops/gemm.h"

namespace cortado::schedules::cpu {

inline void schedule_gemm(Gemm &g, const ops::GemmBlocking &k, const Halide::Target &target,
                          bool transposed_output = false) {
    using namespace Halide;
    const int lanes = target.natural_vector_size<float>();
    Var xt{"xt"}, yt{"yt"}, xi{"xi"}, yi{"yi"}, xo{"xo"}, yo{"yo"}, task{"task"};
    // The register tile's sum. Over a channel-blocked a it is unrolled by whole blocks, so that
    // each step reads at a constant offset from its block: rolled, every step recomputed k / b
    // and k % b, six integer operations beside the 12 FMAs of an AVX2 tile.
    const auto schedule_sum = [&] {
        Stage sum = g.block.update();
        if (g.a_block > 1 && g.k_block % g.a_block == 0) {
            RVar ro{"ro"}, ri{"ri"};
            sum.split(g.r, ro, ri, g.a_block).reorder(g.x, g.y, ri, ro).unroll(ri);
        } else {
            sum.reorder(g.x, g.y, g.r);
        }
        sum.vectorize(g.x, lanes).unroll(g.x).unroll(g.y);
    };

    // GuardWithIf keeps every task's first column a multiple of col_block, hence of cols: the
    // packed panels are then read at whole-panel offsets.
    if (g.output_block > 0) {
        // A channel-blocked C: the same tasks (col_block is a whole number of blocks), each row's
        // blocks stored as whole vectors. Where one block covers K, each register tile goes from
        // registers straight to the output (adding its slice of a fused residual), with no task
        // accumulator to write and read back, a pass that weighs most where K is short; column
        // tiles outside row tiles keep the weight panel in L1 while the task's rows stream past
        // it. With a residual this pays where the output is written over it (the planner's
        // write_sums_over_residuals): its lines are then in cache when the tile stores.
        const bool from_registers = g.single_block && !k.pack;
        Var l{"l"}, yy{"yy"}, yr{"yr"}, xr{"xr"};
        g.output.split(g.v, yy, l, g.output_block)
            .split(yy, yt, yi, k.row_block, TailStrategy::GuardWithIf)
            .split(g.xb, xt, xi, k.col_block / g.output_block, TailStrategy::GuardWithIf);
        if (from_registers)
            g.output.split(yi, yo, yr, k.rows)
                .split(xi, xo, xr, k.cols / g.output_block)
                .reorder(l, xr, yr, yo, xo, xt, yt);
        else g.output.reorder(l, yi, xi, xt, yt);
        g.output.fuse(xt, yt, task).fuse(task, g.n, task).parallel(task).vectorize(l);
        if (from_registers) {
            g.output.unroll(xr).unroll(yr);
            g.acc.compute_inline();
            // Whole tiles at the edges too (the guards only skip their stores): constant bounds
            // are what keep the tile in registers.
            g.block.compute_at(g.output, yo).bound_extent(g.x, k.cols).bound_extent(g.y, k.rows);
            g.block.vectorize(g.x, lanes).unroll(g.x).unroll(g.y);
            schedule_sum();
            return;
        }
    } else {
        g.output.split(g.x, xt, xi, k.col_block, TailStrategy::GuardWithIf)
            .split(g.y, yt, yi, k.row_block, TailStrategy::GuardWithIf)
            .reorder(transposed_output ? std::vector<VarOrRVar>{yi, xi, xt, yt}
                                       : std::vector<VarOrRVar>{xi, yi, xt, yt})
            .fuse(xt, yt, task);
        if (g.output.dimensions() > 2) g.output.fuse(task, g.n, task);
        g.output.parallel(task);
        g.output.vectorize(transposed_output ? yi : xi, lanes, TailStrategy::GuardWithIf);
    }
    // The accumulator is rounded up to whole register tiles: constant tile bounds are what
    // keep `block` in registers. Per-task buffers have a fixed size, so that every task asks
    // the allocator for the same blocks (runtime/kernel_scratch.h reuses them); Halide puts
    // only small ones on the stack, whatever store_in says.
    g.acc.compute_at(g.output, task)
        .store_in(MemoryType::Stack)
        .bound_storage(g.x, k.col_block)
        .bound_storage(g.y, k.row_block);
    Stage tiles = g.single_block ? Stage(g.acc) : Stage(g.acc.update());
    if (!g.single_block) g.acc.vectorize(g.x, lanes, TailStrategy::RoundUp);
    tiles.split(g.x, xo, xi, k.cols, TailStrategy::RoundUp)
        .split(g.y, yo, yi, k.rows, TailStrategy::RoundUp)
        .reorder(g.single_block ? std::vector<VarOrRVar>{xi, yi, yo, xo}
                                : std::vector<VarOrRVar>{xi, yi, yo, xo, g.blocks})
        .vectorize(xi, lanes)
        .unroll(xi)
        .unroll(yi);
    g.block.compute_at(g.acc, yo);
    g.block.vectorize(g.x, lanes).unroll(g.x).unroll(g.y);
    schedule_sum();

    if (k.pack) {
        Func packed = g.b.in(g.block);
        if (g.single_block) packed.compute_at(g.acc, Var::outermost());
        else packed.compute_at(g.acc, g.blocks);
        packed.vectorize(packed.args()[0], lanes, TailStrategy::RoundUp)
            .store_in(MemoryType::Stack)
            .bound_storage(packed.args()[0], k.col_block)
            .bound_storage(packed.args()[1], g.single_block ? g.dims.depth : g.k_block);
    }
}

}  // namespace cortado::schedules::cpu
