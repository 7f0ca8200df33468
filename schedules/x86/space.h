// The x86 family: the generic CPU space with the convolution's register tile sized for x86
// register files. Measured: 138 GFLOP/s on GoogLeNet conv2/3x3 (64->192, 3x3, 56x56, batch 1)
// with the AVX2 tile on the 2-core AMD EPYC (AVX2) development machine, `cortado run` median
// of 20.
#pragma once

#include "schedules/cpu/space.h"

namespace cortado::schedules::x86 {

inline FamilySpace space() {
    FamilySpace f = cpu::space();
    f.name = "x86";
    f.description = "x86-64 (SSE4.1, AVX2, AVX-512)";
    VariantSpec<Conv2dShape> conv = cpu::conv2d_register_tile(0, 0);
    // 6 output channels x 2 vectors: 12 accumulators + 2 inputs + 1 broadcast weight in AVX2's
    // 16 registers; AVX-512's 32 registers take 8 channels.
    conv.complete = [](const Conv2dShape &, const TargetInfo &t, Knobs &k) {
        if (!k.has("channel_block")) k.set("channel_block", t.vector_bits >= 512 ? 8 : 6);
        if (!k.has("vectors_x")) k.set("vectors_x", 2);
    };
    f.op<Conv2dShape>() = single_variant(conv);
    return f;
}

}  // namespace cortado::schedules::x86
