// GPU schedule for InnerProduct: one block per output neuron j; its `lanes` threads stride
// through the weight row together (coalesced), keeping one partial sum per row m in shared
// memory; one thread per row m then adds the partials. At batch 1 this streams the weights
// once, bounded by DRAM bandwidth.
#pragma once

#include "generators/inner_product.h"

namespace cortado::schedules::gpu {

inline void schedule_inner_product(InnerProduct &a, const InnerProductShape &s, const Halide::Target &) {
    using namespace Halide;
    a.output.reorder(a.m, a.j).gpu_blocks(a.j).gpu_threads(a.m);
    a.partial.compute_at(a.output, a.j).store_in(MemoryType::GPUShared).gpu_threads(a.lane);
    if (s.inputs >= a.lanes) a.partial.update().reorder(a.m, a.whole, a.lane).gpu_threads(a.lane);
}

}  // namespace cortado::schedules::gpu
