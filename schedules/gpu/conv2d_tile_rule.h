// The GPU register-tiled convolution's tile, chosen from the shape: the default rule of the
// gpu_register_tile variant (space.h) and the staged variant's running sums share it. No
// Halide here: the planner runs it to show and record every knob of a plan.
#pragma once

#include <utility>

#include "ops/choice.h"
#include "ops/conv2d.h"

namespace cortado::schedules::gpu {

using ops::Conv2dShape;

// The GPU convolution knobs (the variants' knob spaces are in space.h); 0 means "not set yet",
// which the default rules fill in from the shape.
struct Conv2dKnobs {
    int rows = 0, channels = 0, threads_x = 0, threads_c = 0;
    int cols = 0;       // x positions per thread: neighbours share input loads across kx
    int threads_y = 0;  // row groups per block (staged variant only)
    int split_k = 0;    // aiming for `target_threads` threads
    int target_threads = 65536;
    // Input channels per staged chunk (gpu_staged only). Staging is not the default: on the
    // H100 it is slower on most of the conv suite (up to 5x on large maps, where the block's
    // shared running sums limit occupancy) and on Overfeat L6 (0.292 ms against the register
    // variant's 0.274; docs/PERFORMANCE.md). It stays for devices where shared memory pays, and
    // to be tuned.
    int stage_channels = 0;
    // Registers a thread may use (the target's registers_per_thread; on CUDA the runtime
    // raises the driver's cap to it). Halide 21's CUDA runtime caps every kernel at 64, and a
    // tile that needs more spills: 8 channels x 8 rows ran 1.71 ms on Overfeat L6 under the cap
    // and 0.235 ms under a cap of 112 (docs/PERFORMANCE.md).
    int registers = 64;
};

// `base` with every knob that `set` names: how the default rules read the knobs stronger
// sources pinned, and how the generator reads a resolved choice.
inline Conv2dKnobs conv2d_knobs(const ops::Knobs &set, Conv2dKnobs base = {}) {
    // Named, not positional: a reordered struct must not swap knobs silently.
    const std::pair<const char *, int Conv2dKnobs::*> fields[] = {{"rows", &Conv2dKnobs::rows},
                                                                  {"cols", &Conv2dKnobs::cols},
                                                                  {"channels", &Conv2dKnobs::channels},
                                                                  {"threads_x", &Conv2dKnobs::threads_x},
                                                                  {"threads_y", &Conv2dKnobs::threads_y},
                                                                  {"threads_c", &Conv2dKnobs::threads_c},
                                                                  {"split_k", &Conv2dKnobs::split_k},
                                                                  {"stage_channels", &Conv2dKnobs::stage_channels},
                                                                  {"target_threads", &Conv2dKnobs::target_threads},
                                                                  {"registers", &Conv2dKnobs::registers}};
    for (const auto &[name, field] : fields)
        if (set.has(name)) base.*field = set.get(name);
    return base;
}

// Taller register tiles reuse each weight more, but a tile that overhangs the map recomputes
// rows: take 8 rows when that wastes at most 10% (15, 55, 56 ... rows), else 4.
inline int rows_per_thread(int out_h) {
    auto computed = [&](int rows) { return ((out_h + rows - 1) / rows) * rows; };
    return computed(8) * 10 <= out_h * 11 ? 8 : 4;
}

// Threads a register tile of cols x rows x channels gives, one per tile.
inline long tile_threads(const Conv2dShape &s, int cols, int rows, int channels) {
    return long(s.batch) * ((s.out_w + cols - 1) / cols) * ((s.out_h + rows - 1) / rows) *
           ((s.out_channels + channels - 1) / channels);
}

// Split the reduction until about `target_threads` threads run (default 64k: 132 SMs x 512),
// keeping at least 16 input channels per share.
inline int split_for(const Conv2dShape &s, long threads, int target_threads) {
    const int in_per_group = s.in_channels / s.group;
    int split = 1;
    while (threads * split * 2 <= target_threads && in_per_group / (split * 2) >= 16) split *= 2;
    return split;
}

// The register tile's sizes, each knob left at 0 filled in from the shape.
inline Conv2dKnobs register_tile(const Conv2dShape &s, Conv2dKnobs k) {
    // 8 output channels per thread (64 accumulators) need about 96 registers; given them,
    // spatial kernels take the larger tile, with 2 channel groups per block (8 with 4
    // channels). On the H100's quick conv suite it is faster on 3x3 and 5x5 layers (Overfeat L6:
    // 0.217 ms against 0.276 with 4 channels) and up to 10% slower on 1x1 layers at batch 20,
    // which keep 4 channels (docs/PERFORMANCE.md).
    if (k.cols <= 0) k.cols = 1;
    if (k.rows <= 0) k.rows = rows_per_thread(s.out_h);
    bool wide = k.registers >= 96 && s.kernel_h * s.kernel_w > 1 && s.out_channels >= 16;
    // The larger tile halves the threads; layers whose reduction cannot be split far enough to
    // make up for it keep the smaller one: LeNet's convolutions at batch 5 and 20 (at most 4320
    // threads with 8 channels) ran twice as long with it.
    if (wide && k.channels <= 0 && k.split_k <= 0) {
        const long threads = tile_threads(s, k.cols, k.rows, 8);
        wide = threads * split_for(s, threads, k.target_threads) >= k.target_threads / 8;
    }
    if (k.channels <= 0) k.channels = wide ? 8 : 4;
    if (k.threads_x <= 0) k.threads_x = 32;
    // NVIDIA's OpenCL leaves unwritten a last channel group that is both partial and shifted
    // inwards by the block split (more groups than threads_c), where CUDA and PoCL compute it;
    // such layers take the largest group size that divides their channels.
    const int threads_c = k.threads_c > 0 ? k.threads_c : (k.channels >= 8 ? 2 : 8);
    if (s.out_channels % k.channels != 0 && (s.out_channels + k.channels - 1) / k.channels > threads_c)
        while (s.out_channels % k.channels != 0) k.channels--;
    if (k.threads_c <= 0) k.threads_c = k.channels >= 8 ? 2 : 8;
    return k;
}

}  // namespace cortado::schedules::gpu
