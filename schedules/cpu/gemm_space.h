// The GEMM variants of the CPU families (Halide-free): their knobs, limits and default rule. The
// register tile is sized from the family's register file; the task blocks from the shape, so
// that both cores get work from medium sizes up. Used by the gemm op itself, by InnerProduct
// with enough rows, and by fully-connected and 1x1 convolutions (generators/gemm.h).
#pragma once

#include <algorithm>
#include <functional>
#include <string>

#include "ops/gemm.h"
#include "schedules/machine_model.h"
#include "schedules/space.h"

namespace cortado::schedules::cpu {

// Vector registers of the family's CPUs, given the target's vector width.
using RegisterCount = std::function<int(const TargetInfo &)>;

// Rows per register tile: at most `most`, and of those from `least` up, the one that wastes
// the fewest rows on M (20 rows: 5, not 8, which would compute 24).
inline int tile_rows(int m, int most, int least) {
    if (m <= most) return m;
    const auto waste = [m](int rows) { return (m + rows - 1) / rows * rows - m; };
    int best = most;
    for (int rows = most; rows >= least; rows--)
        if (waste(rows) < waste(best)) best = rows;
    return best;
}

// Register tiles of `vectors` vectors by rows of broadcasts, shared by the GEMM and the
// channel-lanes convolution: full with 24 accumulators in 32 registers, 12 in 16, at most 4 (3)
// vectors wide and 12 rows tall, with room left for the loaded vectors and the broadcast.
inline int full_tile_accumulators(int registers) { return registers >= 32 ? 24 : 12; }
inline int widest_tile_vectors(int registers) { return registers >= 32 ? 4 : 3; }
// At least one row of at least one vector: a stronger source may set `cols` wider than any
// register tile, which register_tile_violation then reports. `accumulators`: a full tile's.
inline int register_tile_rows(int vectors, int registers, int accumulators) {
    vectors = std::max(1, vectors);
    return std::max(1, std::min({12, accumulators / vectors, (registers - vectors - 1) / vectors}));
}
inline int register_tile_rows(int vectors, int registers) {
    return register_tile_rows(vectors, registers, full_tile_accumulators(registers));
}

// Vector loads a core starts per cycle, beside its FMAs: two on the x86 and ARM cores the rules
// were measured on (a broadcast counts as one).
inline constexpr int kVectorLoadsPerCycle = 2;

// The share of the FMA pipes' rate a register tile of `vectors` x `rows` accumulators sustains:
// each step of the reduction issues vectors x rows FMAs, loads vectors + rows operands, and
// cannot start before the last step's results are out of the pipes (their latency). On a core
// with one full-width FMA a cycle, a fuller tile is still worth more (its accumulators over a
// full tile's), as measured on the Zen 4 VM. Where two start a cycle, loads bound the narrow
// tiles: one vector by 12 rows loads 13 operands per 12 FMAs, and ran slower on AVX2 than two
// vectors by 6 (docs/PERFORMANCE.md, "The GEMM tile on an unseen AVX2 CPU").
inline double tile_fma_share(int vectors, int rows, int registers, const MachineModel &m) {
    const double fmas = double(vectors) * rows, pipes = std::max(1, m.fma_units);
    const double cycles =
        std::max({fmas / pipes, double(vectors + rows) / kVectorLoadsPerCycle, double(m.fma_latency)});
    const double issue = fmas / pipes / cycles;
    return pipes > 1 ? issue : issue * fmas / full_tile_accumulators(registers);
}

// The fewest rows a tile of `vectors` vectors may shrink to, to waste fewer rows at the edge of
// the output: half of the `most` it can hold, and enough accumulators to keep every FMA pipe
// busy through its latency with a cycle to spare. With two pipes of latency 4 that is 10: on
// AVX2's 16 registers a 4 x 2 tile, 8 accumulators, ran slower than 6 x 2 (docs/PERFORMANCE.md,
// "The GEMM tile on an unseen AVX2 CPU").
inline int least_tile_rows(int vectors, int most, const MachineModel &m) {
    const int in_flight = std::max(1, m.fma_units) * (m.fma_latency + 1);
    return std::min(most, std::max((most + 1) / 2, (in_flight + vectors - 1) / std::max(1, vectors)));
}

// Why a tile of rows x cols cannot be a register tile: cols not whole vectors, or more
// registers than the target has; empty when it can.
inline std::string register_tile_violation(int lanes, int registers, int rows, int cols) {
    if (cols % lanes)
        return "cols = " + std::to_string(cols) + " is not a whole number of " + std::to_string(lanes) +
               "-float vectors";
    const int needed = rows * (cols / lanes) + cols / lanes + 1;
    if (needed > registers)
        return std::to_string(rows) + " x " + std::to_string(cols / lanes) +
               " accumulators, their loaded vectors and a broadcast need " + std::to_string(needed) +
               " vector registers; the target has " + std::to_string(registers);
    return "";
}

// The default blocking of an M x N x K product (times `batch`) in `registers` vector registers;
// `packs_b`: the variant has the `pack` knob.
inline void complete_gemm_knobs(const ops::GemmDims &d, const TargetInfo &t, int registers, bool packs_b, Knobs &k) {
    const int lanes = t.float_lanes();
    const auto round_up = [](int v, int m) { return (v + m - 1) / m * m; };
    // The register tile: v vectors of columns by register_tile_rows(v) rows. Of the widths, the
    // one that wastes the fewest columns on N, weighted by the share of the FMA pipes' rate its
    // tile sustains (tile_fma_share). 3 vectors (8 x 3 in 32 registers, 4 x 3 in 16) measured
    // fastest on large products, so they win unless another width scores 4% better
    // (docs/PERFORMANCE.md, GEMM).
    const MachineModel machine = t.model();
    const auto score = [&](int v) {
        const double used = double(d.cols) / round_up(d.cols, v * lanes);
        return used * tile_fma_share(v, register_tile_rows(v, registers), registers, machine);
    };
    int best_vectors = 3;
    for (int v = 1; v <= widest_tile_vectors(registers); v++)
        if (score(v) > score(best_vectors) * 1.04) best_vectors = v;
    if (!k.has("cols")) k.set("cols", best_vectors * lanes);
    if (!k.has("rows")) {
        const int vectors = k.get("cols") / lanes, most = register_tile_rows(vectors, registers);
        k.set("rows", tile_rows(d.rows, most, least_tile_rows(vectors, most, machine)));
    }
    // 256 x 48 floats of b (48 KiB): a K block as long as L1, measured faster than 128 on
    // products of 1024 and more.
    if (!k.has("k_block")) k.set("k_block", std::min(256, d.depth));
    const int rows = k.get("rows"), cols = k.get("cols");
    // Tasks of at most about 768 rows by 384 columns, equal in size: tall tasks pack each slice
    // of b fewer times.
    const auto even_block = [&](int extent, int most, int tile) {
        const int count = (extent + most - 1) / most;
        return round_up((extent + count - 1) / count, tile);
    };
    // Where b comes packed (no `pack`), each column tile's panel of b stays in L1 while the
    // task's rows of a stream past it, once per column tile: those rows (row_block x k_block)
    // are read again from L2 each time, so they take at most half of it. On a 512 KiB L2, 630
    // rows of 256 ran 1x1 layers up to 1.2x slower than 128 (docs/PERFORMANCE.md, "Blocked sums
    // unrolled, tasks sized by L2"). With `pack`, a is the weights and tall tasks copy b fewer times.
    const int most_rows =
        packs_b ? 768 : int(std::clamp<long long>(machine.half_l2_floats() / k.get("k_block"), rows, 768));
    int row_block = even_block(d.rows, most_rows, rows), col_block = even_block(d.cols, 384, cols);
    // Tasks that keep the cores busy where the product allows (5 images on 2 cores would leave
    // one idle a sixth of the time), halving the larger side.
    const auto tasks = [&] {
        return int64_t(d.batch) * ((d.rows + row_block - 1) / row_block) * ((d.cols + col_block - 1) / col_block);
    };
    while (!keeps_cores_busy(tasks(), t.cores) && (row_block > rows || col_block > cols)) {
        if (row_block / rows >= col_block / cols && row_block > rows) row_block = round_up((row_block + 1) / 2, rows);
        else col_block = round_up((col_block + 1) / 2, cols);
    }
    if (!k.has("row_block")) k.set("row_block", row_block);
    if (!k.has("col_block")) k.set("col_block", col_block);
    if (packs_b && !k.has("pack")) k.set("pack", 1);
}

// What makes a blocking unusable on this target: a tile that does not fit the registers,
// columns that are not whole vectors, tasks that are not whole tiles.
inline std::string gemm_blocking_violation(const TargetInfo &t, int registers, const Knobs &k) {
    const int rows = k.get("rows"), cols = k.get("cols");
    const std::string tile = register_tile_violation(t.float_lanes(), registers, rows, cols);
    if (!tile.empty()) return tile;
    if (k.get("row_block") % rows) return "row_block is not a multiple of rows";
    if (k.get("col_block") % cols) return "col_block is not a multiple of cols";
    return "";
}

// A GEMM variant of `Shape`, whose product is `dims(shape)`. `packs_b`: b is read in place, so
// the variant has the `pack` knob; otherwise the weights are b, packed at create time.
template <typename Shape>
VariantSpec<Shape> gemm_variant(const std::string &name, ops::WeightPacking weights, bool packs_b,
                                std::function<ops::GemmDims(const Shape &)> dims, RegisterCount registers) {
    VariantSpec<Shape> v;
    v.name = name;
    v.form = ops::Form::gemm();
    v.sources = {"schedules/cpu/gemm.h", "schedules/cpu/gemm_space.h"};
    v.weights = weights;
    // Tasks and tiles split the output with GuardWithIf or into whole tiles (gemm_blocking_violation).
    v.writes_each_output_once = true;
    v.knobs = {{"rows", 1, 32, "rows of C per register tile (broadcasts of a)"},
               {"cols", 1, 256, "columns of C per register tile, whole vectors"},
               {"k_block", 1, 1 << 20, "K summed per pass of the register tiles"},
               {"row_block", 1, 1 << 20, "rows of C per parallel task, a multiple of rows", true},
               {"col_block", 1, 1 << 20, "columns of C per parallel task, a multiple of cols", true}};
    if (packs_b) v.knobs.push_back({"pack", 0, 1, "copy b into panels per task and K block"});
    v.complete = [dims, registers, packs_b](const Shape &s, const TargetInfo &t, Knobs &k) {
        complete_gemm_knobs(dims(s), t, registers(t), packs_b, k);
    };
    v.violated = [registers](const Shape &, const TargetInfo &t, const Knobs &k) {
        return gemm_blocking_violation(t, registers(t), k);
    };
    return v;
}

// The gemm op: C = op(A) op(B), with B read in place.
inline OpSpace<GemmShape> gemm_space(RegisterCount registers) {
    return single_variant(gemm_variant<GemmShape>(
        "cpu_gemm", ops::WeightPacking::CaffeOrder, true, [](const GemmShape &s) { return ops::gemm_dims(s); },
        registers));
}

// Rows from which InnerProduct is a GEMM by default (docs/PERFORMANCE.md, GEMM).
inline constexpr int kGemmMinRows = 4;

// InnerProduct as a GEMM over packed weight panels; the weight-streaming GEMV (`gemv`) stays
// the default for rows too few to reuse a weight vector.
inline OpSpace<InnerProductShape> inner_product_space(VariantSpec<InnerProductShape> gemv, RegisterCount registers) {
    OpSpace<InnerProductShape> space;
    space.variants.push_back(std::move(gemv));
    space.variants.push_back(gemm_variant<InnerProductShape>(
        "cpu_gemm", ops::WeightPacking::ColumnPanels, false,
        [](const InnerProductShape &s) { return ops::gemm_dims(s); }, registers));
    const std::string gemv_name = space.variants.front().name;
    space.default_variant = [gemv_name](const InnerProductShape &s, const TargetInfo &) {
        return s.rows >= kGemmMinRows ? "cpu_gemm" : gemv_name;
    };
    return space;
}

}  // namespace cortado::schedules::cpu
