// The GPU GEMM's tile (Halide-free): what its knobs mean, how they fit a product, and the
// default rules of its two forms (schedules/gpu/gemm.h is the schedule):
// - skinny, for classifiers at small batches (up to kSkinnyMaxRows rows): all M rows in one
//   register tile, a warp of lanes over the output neurons, K split into shares until the GPU
//   is full;
// - square, for large products: 4 x 8 or 4 x 4 register tiles in small blocks, smaller tiles and
//   then split-K where that leaves the GPU short of threads.
#pragma once

#include <algorithm>
#include <string>

#include "ops/gemm.h"
#include "schedules/gpu/fitting.h"
#include "schedules/gpu/limits.h"

namespace cortado::schedules::gpu {

struct GemmGpuTile {
    int cols = 1, rows = 1, threads_x = 32, threads_y = 1, k_block = 1, k_unroll = 1;
    bool pack_a = false;

    static GemmGpuTile from(const ops::Knobs &k) {
        return {k.get("cols"),
                k.get("rows"),
                k.get("threads_x"),
                k.get("threads_y"),
                k.get("k_block"),
                k.get("k_unroll"),
                k.has("pack_a") && k.get("pack_a") != 0};
    }

    // The tile the schedule uses: a block never wider or taller than C (whole tiles, shifted
    // inwards at the edges), a K block never longer than K.
    GemmGpuTile fitted(const ops::GemmDims &d) const {
        GemmGpuTile t = *this;
        t.cols = fitting(cols, d.cols), t.rows = fitting(rows, d.rows);
        t.threads_x = fitting(threads_x, d.cols / t.cols), t.threads_y = fitting(threads_y, d.rows / t.rows);
        t.k_block = fitting(k_block, d.depth);
        return t;
    }

    long threads(const ops::GemmDims &d) const {
        const long tiles_x = (d.cols + cols - 1) / cols, tiles_y = (d.rows + rows - 1) / rows;
        const long shares = (d.depth + k_block - 1) / k_block;
        return tiles_x * tiles_y * d.batch * shares;
    }
};

// Rows from which a product takes the square form by default; up to it, the skinny one.
inline constexpr int kSkinnyMaxRows = 4;

// Threads the default rules aim for: 256 on each of the H100's 132 SMs, so that every SM has
// several warps to switch between while their loads are in flight.
inline constexpr long kGemmTargetThreads = 32768;

// Halves the K block until about `target` threads run, keeping every share at least
// `min_depth` long, a divisor of K, and the partial sums' traffic (8 bytes per row per share,
// written and read back) under an eighth of the 4-byte operands each column of C reads along K.
inline int split_k_block(const ops::GemmDims &d, GemmGpuTile t, long target, int min_depth) {
    t.k_block = d.depth;
    for (;;) {
        const int next = t.k_block / 2;
        const long next_shares = d.depth / std::max(next, 1);
        if (t.k_block % 2 || next < min_depth || t.threads(d) >= target || next_shares * d.rows * 16 > d.depth)
            return t.k_block;
        t.k_block = next;
    }
}

// Fills the knobs not set: `skinny` picks the form; `registers` is the per-thread budget (the
// accumulators take at most half of it); `a_in_place`: the variant has the pack_a knob. The
// square form's tiles are what measured fastest on the H100 (docs/PERFORMANCE.md, the GEMM on
// the H100): 4 x 8 tiles with a packed where the product has four times the threads to fill
// the GPU with them (SGEMM from 2048), else 4 x 4 tiles in 16 x 8 blocks, smaller ones where
// even those leave it short.
inline void complete_gemm_tile(const ops::GemmDims &d, bool skinny, int registers, bool a_in_place, ops::Knobs &k) {
    const int accumulators = std::max(4, registers / 2);
    GemmGpuTile t;
    bool pack_a = false;
    if (skinny) {
        t.rows = k.has("rows") ? k.get("rows") : d.rows;
        t.cols = 4;
        while (t.cols > 1 && t.cols * t.rows > accumulators) t.cols /= 2;
        t.threads_x = 32, t.threads_y = 1;
    } else {
        t.k_block = d.depth;
        const auto threads = [&] { return t.fitted(d).threads(d); };
        t.cols = 4, t.rows = 8, t.threads_x = 16, t.threads_y = 2;
        if (registers >= 96 && threads() >= 4 * kGemmTargetThreads) {
            pack_a = a_in_place;
        } else {
            t.rows = std::min(4, accumulators / 4), t.threads_y = 8;
            while (threads() < kGemmTargetThreads && t.rows > 2) t.rows /= 2;
            while (threads() < kGemmTargetThreads && t.cols > 2)
                t.cols /= 2, t.threads_x *= 2, t.threads_y = std::max(1, t.threads_y / 2);
        }
    }
    if (a_in_place && !k.has("pack_a")) k.set("pack_a", pack_a ? 1 : 0);
    if (k.has("cols")) t.cols = k.get("cols");
    if (k.has("rows")) t.rows = k.get("rows");
    if (k.has("threads_x")) t.threads_x = k.get("threads_x");
    if (k.has("threads_y")) t.threads_y = k.get("threads_y");
    t = t.fitted(d);
    if (!k.has("k_block")) k.set("k_block", split_k_block(d, t, kGemmTargetThreads, skinny ? 64 : 256));
    t.k_block = k.get("k_block");
    t = t.fitted(d);
    k.set("cols", t.cols), k.set("rows", t.rows), k.set("threads_x", t.threads_x), k.set("threads_y", t.threads_y);
    k.set("k_block", t.k_block);
    // Loads of 4 k at a time wherever the K blocks are whole groups of 4.
    if (!k.has("k_unroll")) k.set("k_unroll", d.depth % t.k_block == 0 && t.k_block % 4 == 0 ? 4 : 1);
}

// What makes a tile unusable: too many threads per block, more accumulators than registers, or
// K groups that would read past K.
inline std::string gemm_tile_violation(const ops::GemmDims &d, int registers, const ops::Knobs &k) {
    const int k_unroll = k.get("k_unroll"), k_block = std::min(k.get("k_block"), d.depth);
    // Staged operands need K blocks of constant length: no short last block.
    if (k_unroll > 1 && (d.depth % k_block || k_block % k_unroll))
        return "k_unroll " + std::to_string(k_unroll) + " needs K = " + std::to_string(d.depth) +
               " in whole K blocks of " + std::to_string(k_block) + ", each a multiple of " + std::to_string(k_unroll);
    const std::string too_large = block_too_large(k.get("threads_x") * k.get("threads_y"));
    if (!too_large.empty()) return too_large;
    const int accumulators = k.get("cols") * k.get("rows");
    if (accumulators + k.get("cols") + k.get("rows") > registers)
        return std::to_string(k.get("rows")) + " x " + std::to_string(k.get("cols")) +
               " accumulators and their operands need more than the " + std::to_string(registers) +
               " registers per thread";
    return "";
}

}  // namespace cortado::schedules::gpu
