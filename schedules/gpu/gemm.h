// GPU schedule for the GEMM (generators/gemm.h), CUDA and OpenCL alike; no shared memory, so no
// barrier to get wrong:
// - each thread owns a register tile of `rows` x `cols` of C (cols adjacent columns, the
//   axis b is read along; rows broadcasts of a), its operands loaded straight from global
//   memory through L1 at every k;
// - a block is threads_x x threads_y threads (one warp by default): adjacent threads take
//   adjacent column tiles, so a warp reads a contiguous run of b at each k (coalesced, when b
//   is the weights packed into panels at least as wide as the block) and each a value is one
//   broadcast to the threads of a row;
// - split-K: when k_block < K, a first kernel sums each K share into its own partial tile
//   (blocks over column tiles, row tiles and shares), and the output kernel adds the shares,
//   the bias and the activation. Few-row products (classifiers at small batches) need it to fill
//   the GPU: their rows are one register tile, so only N / (threads_x · cols) blocks exist.
// Tiles are whole: the tile never exceeds C (GemmGpuTile::fitted) and the last tile in each
// direction shifts inwards, recomputing a few elements rather than guarding every store.
#pragma once

#include <vector>

#include "generators/gemm.h"
#include "schedules/gpu/gemm_tile.h"

namespace cortado::schedules::gpu {

// Tiles `f` (x, y[, ...] or, transposed, y, x[, ...]) into thread register tiles; its
// remaining dimensions (batch, unit, K share) become the third block dimension. Returns the
// thread's x var, where per-thread producers are computed.
inline Halide::Var tile_gemm(Halide::Func f, const GemmGpuTile &t, bool transposed) {
    using namespace Halide;
    const std::vector<Var> args = f.args();
    const Var x = transposed ? args[1] : args[0], y = transposed ? args[0] : args[1];
    Var xb{"xb"}, xt{"xt"}, xv{"xv"}, yb{"yb"}, yt{"yt"}, yv{"yv"};
    f.split(x, xb, xt, t.threads_x * t.cols, TailStrategy::ShiftInwards)
        .split(xt, xt, xv, t.cols)
        .split(y, yb, yt, t.threads_y * t.rows, TailStrategy::ShiftInwards)
        .split(yt, yt, yv, t.rows);
    // Stores along the axis C is laid out on: columns, or rows when C is transposed.
    f.reorder(transposed ? std::vector<VarOrRVar>{yv, xv, xt, yt, xb, yb}
                         : std::vector<VarOrRVar>{xv, yv, xt, yt, xb, yb});
    if (args.size() == 2) {
        f.gpu_blocks(xb, yb);
    } else {
        Var rest = args[2];
        for (size_t i = 3; i < args.size(); i++) f.fuse(rest, args[i], rest);
        f.gpu_blocks(xb, yb, rest);
    }
    f.gpu_threads(xt, yt).unroll(xv).unroll(yv);
    return xt;
}

// Loads `f` along `v`, of `width` elements, as one vector where OpenCL C has that width (2, 4,
// 8, 16; Halide's 3-wide loads assume 16-byte alignment), element by element otherwise.
inline void load_as_vector(Halide::Func f, const Halide::Var &v, int width) {
    if (width == 2 || width == 4 || width == 8 || width == 16) f.vectorize(v);
    else f.unroll(v);
}

inline void schedule_gemm(Gemm &g, const GemmGpuTile &tile, bool transposed_output = false) {
    using namespace Halide;
    const GemmGpuTile t = tile.fitted(g.dims);
    // pack_a: a first kernel copies a with its rows innermost, so that at each k a tile's rows
    // are one contiguous run instead of one line per row, K floats apart.
    Func a_source = g.a;
    if (t.pack_a) {
        a_source = g.a.in();
        const Var k = a_source.args()[0], y = a_source.args()[1];
        Var yo{"yo"}, yi{"yi"}, ko{"ko"}, ki{"ki"};
        a_source.compute_root().reorder_storage(y, k).gpu_tile(y, k, yo, ko, yi, ki, fitting(32, g.dims.rows),
                                                               fitting(8, g.dims.depth), TailStrategy::GuardWithIf);
    }
    // Each share's sum over its K block, in the thread's registers: the k loop outermost, the
    // tile's multiply-adds unrolled inside it. With k_unroll > 1, k advances that many at a
    // time and the tile's operands for those k are loaded first, as vectors where they are
    // contiguous (b along its columns; a along k): a quarter of the load instructions at 4.
    const auto sum_in_registers = [&](Func consumer, const Var &thread) {
        g.block.compute_at(consumer, thread).store_in(MemoryType::Register).unroll(g.x).unroll(g.y);
        Stage sum = g.block.update();
        if (t.k_unroll <= 1) {
            sum.reorder(g.x, g.y, g.r).unroll(g.x).unroll(g.y);
            return;
        }
        RVar ro{"ro"}, ri{"ri"};
        sum.split(g.r, ro, ri, t.k_unroll).reorder(g.x, g.y, ri, ro).unroll(g.x).unroll(g.y).unroll(ri);
        Func a = a_source.in(g.block), b = g.b.in(g.block);
        // Packed, a is contiguous along its rows (y); in place, along k.
        const Var a_along = a.args()[t.pack_a ? 1 : 0], a_across = a.args()[t.pack_a ? 0 : 1];
        a.compute_at(g.block, ro).store_in(MemoryType::Register).unroll(a_across);
        load_as_vector(a, a_along, t.pack_a ? t.rows : t.k_unroll);
        b.compute_at(g.block, ro).store_in(MemoryType::Register).unroll(b.args()[1]);
        load_as_vector(b, b.args()[0], t.cols);
    };
    if (g.single_block) {
        const Var thread = tile_gemm(g.output, t, transposed_output);
        g.acc.compute_inline();
        sum_in_registers(g.output, thread);
        return;
    }
    // Split-K: the shares' partial tiles go through global memory.
    Func partials = g.block.in(g.acc);
    partials.compute_root();
    sum_in_registers(partials, tile_gemm(partials, t, false));
    const Var thread = tile_gemm(g.output, t, transposed_output);
    g.acc.compute_at(g.output, thread).store_in(MemoryType::Register).unroll(g.x).unroll(g.y);
    g.acc.update().reorder(g.x, g.y, g.blocks).unroll(g.x).unroll(g.y);
}

}  // namespace cortado::schedules::gpu
