// CPU schedule (x86 and ARM, in the target's vector width) for InnerProduct: each weight vector is
// loaded once and used for every row m (rows unrolled into registers when few), parallel over
// blocks of outputs. At batch 1 this is a weight-streaming GEMV, bounded by DRAM bandwidth.
#pragma once

#include "generators/inner_product.h"

namespace cortado::schedules::cpu {

inline void schedule_inner_product(InnerProduct &a, const InnerProductShape &s, const Halide::Target &) {
    using namespace Halide;
    Var jo{"jo"}, ji{"ji"};
    const int block = s.outputs >= 16 ? 16 : s.outputs;
    a.output.split(a.j, jo, ji, block, TailStrategy::GuardWithIf).reorder(a.m, ji, jo).parallel(jo);
    a.partial.compute_at(a.output, ji).vectorize(a.lane);
    if (s.inputs >= a.lanes) {
        a.partial.update().reorder(a.lane, a.m, a.whole).vectorize(a.lane);
        if (s.rows <= 8) a.partial.update().unroll(a.m);
    }
}

}  // namespace cortado::schedules::cpu
