// The half-precision convolution of the GPU family (Halide-free): its knobs, limits and default
// rule (algorithm: generators/conv2d_fp16.h, schedule: conv2d_fp16.h). A thread's tile is `cols`
// output channels (one packed panel) by `rows` pixels, with an fp32 and a half sum for each; a
// block is `threads_q` pixel tiles by `threads_c` panels.
#pragma once

#include <algorithm>
#include <string>

#include "ops/conv2d_fp16.h"
#include "ops/gemm.h"
#include "schedules/gpu/limits.h"
#include "schedules/space.h"

namespace cortado::schedules::gpu {

inline constexpr const char *kGpuFp16ChannelLanes = "gpu_fp16_channel_lanes";
// Threads the default tile aims for, as the int8 variant's (conv2d_int8_space.h).
inline constexpr long kFp16TargetThreads = 65536;
// Reduction positions (channels x kernel taps) a half sum covers by default before it is added
// in fp32: its rounding error grows with the square root of the positions.
inline constexpr int kFp16ChunkPositions = 96;

// Registers a tile of cols x rows takes: an fp32 sum each, and a half sum each, two to a register.
inline int fp16_tile_registers(int cols, int rows) { return cols * rows + (cols * rows + 1) / 2; }

inline VariantSpec<Conv2dFp16Shape> conv2d_fp16_channel_lanes() {
    VariantSpec<Conv2dFp16Shape> v;
    v.name = kGpuFp16ChannelLanes;
    v.form = ops::Form::channel_lanes();
    v.sources = {"schedules/gpu/conv2d_fp16.h", "schedules/gpu/conv2d_fp16_space.h", "schedules/gpu/limits.h",
                 "schedules/gpu/tiling.h"};
    v.weights = ops::WeightPacking::Fp16Panels;
    v.knobs = {{"cols", 1, 16, "output channels per thread (one packed panel)"},
               {"rows", 1, 16, "output pixels per thread (consecutive in the image, across rows)"},
               {"threads_q", 1, 1024, "threads of a block along the pixels"},
               {"threads_c", 1, 1024, "threads of a block along the panels"},
               {"registers", 16, 255, "registers per thread the tile may plan for"},
               {"chunk", 1, 4096, "input channels a half sum covers before it is added in fp32"},
               {"half", 0, 1, "1: products and chunk sums in half; 0: in fp32 (half storage only)"},
               {"vector", 1, 16, "output channels of a thread computed (and their weights loaded) as one vector"}};
    // Against the reference's products of the half operands in double: what the half sums of a
    // chunk round away, about 2^-11 times the square root of its positions, relative.
    v.tolerance = 1e-2f;
    v.violated = [](const Conv2dFp16Shape &s, const TargetInfo &t, const Knobs &k) -> std::string {
        if (t.has_feature("opencl") && !t.has_feature("cl_half"))
            return "OpenCL computes in half only with the target feature cl_half (the device's cl_khr_fp16)";
        if (!ops::panel_fits_groups(s.conv, k.get("cols"))) return "a panel of cols output channels spans two groups";
        if ((s.conv.in_channels / s.conv.group) % k.get("chunk") != 0)
            return "chunk does not divide a group's input channels";
        if (k.get("cols") % k.get("vector") != 0) return "vector does not divide cols";
        if (t.has_feature("opencl") && k.get("vector") > 2)
            return "OpenCL takes half vectors of 2 (NVIDIA's compiler fails on wider half arithmetic)";
        if (fp16_tile_registers(k.get("cols"), k.get("rows")) > k.get("registers") - 32)
            return "the tile's fp32 and half sums exceed the registers less 32";
        return block_too_large(k.get("threads_q") * k.get("threads_c"));
    };
    v.complete = [](const Conv2dFp16Shape &s, const TargetInfo &t, Knobs &k) {
        if (!k.has("registers")) k.set("registers", register_budget(t));
        if (!k.has("half")) k.set("half", 1);
        const int pixels = s.conv.out_w * s.conv.out_h, area = s.conv.kernel_h * s.conv.kernel_w;
        if (!k.has("chunk")) k.set("chunk", ops::fp16_chunk_channels(s.conv, std::max(1, kFp16ChunkPositions / area)));
        if (!k.has("cols")) {  // 8 (four pairs), or the widest of 4, 2, 1 that fits the groups
            int cols = 8;
            while (cols > 1 && !ops::panel_fits_groups(s.conv, cols)) cols /= 2;
            k.set("cols", cols);
        }
        if (!k.has("vector")) {
            // CUDA: the widest of 8, 4, 2 that divides the panel (8: the weights of a step in one
            // 16-byte load). OpenCL: pairs; NVIDIA's OpenCL compiler fails on half8 arithmetic
            // ("Do not know how to split the result of this operator").
            int vector = t.has_feature("opencl") ? 2 : 8;
            while (vector > 1 && k.get("cols") % vector != 0) vector /= 2;
            k.set("vector", vector);
        }
        const long panels = ops::panel_count(s.conv.out_channels, k.get("cols"));
        const auto threads = [&](int rows) { return long(s.conv.batch) * panels * ((pixels + rows - 1) / rows); };
        if (!k.has("rows")) {
            // 8 pixels (4 for kernels of 7x7 and more), fewer where the registers ask for it or
            // the layer would not fill the device (a thread per tile, about kFp16TargetThreads of
            // them); not below 4 where 4 still gives a quarter of those threads, since a thread
            // of fewer pixels waits on its loads (docs/PERFORMANCE.md, the H200 sweep).
            int rows = std::min(area >= 49 ? 4 : 8, pixels);
            while (rows > 1 && fp16_tile_registers(k.get("cols"), rows) > k.get("registers") - 32) rows /= 2;
            const int least = threads(4) >= kFp16TargetThreads / 4 ? 4 : 1;
            while (rows > least && threads(rows) < kFp16TargetThreads) rows /= 2;
            k.set("rows", rows);
        }
        const int tiles = (pixels + k.get("rows") - 1) / k.get("rows");
        if (!k.has("threads_q")) k.set("threads_q", std::min(32, tiles));
        if (!k.has("threads_c")) k.set("threads_c", std::max(1, 128 / k.get("threads_q")));
    };
    return v;
}

}  // namespace cortado::schedules::gpu
