// GPU schedule for InnerProduct: one block per output neuron j and group of up to 16 rows m;
// its `lanes` threads stride through the weight row together (coalesced), keeping one partial
// sum per row in shared memory; one thread per row then adds the partials. At batch 1 this
// streams the weights once, bounded by DRAM bandwidth. Rows are grouped so that the block's
// threads (lanes) and its shared partial sums (lanes x 16 floats) stay within limits for any
// number of rows; a square SGEMM through it re-reads the weights once per row group, so it is
// far from a tiled GEMM (docs/PERFORMANCE.md).
#pragma once

#include "generators/inner_product.h"
#include "schedules/gpu/tiling.h"

namespace cortado::schedules::gpu {

inline void schedule_inner_product(InnerProduct &a, const InnerProductShape &s, const Halide::Target &) {
    using namespace Halide;
    Var mo{"mo"}, mi{"mi"};
    // ShiftInwards keeps every row group inside the input, so the partial sums never read past it.
    a.output.split(a.m, mo, mi, fitting(16, s.rows), TailStrategy::ShiftInwards)
        .reorder(mi, a.j, mo)
        .gpu_blocks(a.j, mo)
        .gpu_threads(mi);
    a.partial.compute_at(a.output, a.j).store_in(MemoryType::GPUShared).gpu_threads(a.lane);
    if (s.inputs >= a.lanes) a.partial.update().reorder(a.m, a.whole, a.lane).gpu_threads(a.lane);
}

}  // namespace cortado::schedules::gpu
