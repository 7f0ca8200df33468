// The CPU schedule of the Winograd convolution (generators/conv2d_winograd.h), three passes over
// memory:
// - the input transform, vectorised over tiles along x, all α² positions of a tile in one
//   unrolled body (the row sums Bᵀ d are shared between positions), parallel over channels
//   (over channels within a block, from a channel-blocked input);
// - the α² products on the CPU GEMM schedule (schedules/cpu/gemm.h), with C stored tile-innermost;
// - the output transform, vectorised over tiles along x with the m×m pixels of a tile unrolled,
//   parallel over channels and images.
#pragma once

#include "generators/conv2d_winograd.h"
#include "schedules/cpu/gemm.h"
#include "schedules/cpu/padded_input.h"

namespace cortado::schedules::cpu {

// `batch_chunk`: with the products channel-innermost, the images whose padded input and input
// transform are stored at once, before their products and outputs (0: the whole batch).
inline void schedule_conv2d_winograd(Conv2dWinograd &a, const ops::GemmBlocking &blocking, const Halide::Target &target,
                                     int batch_chunk = 0) {
    using namespace Halide;
    const int lanes = target.natural_vector_size<float>();
    const int m = a.matrices.m;
    const int batch = a.tiles.count / (a.tiles.x * a.tiles.y);
    const bool chunked = a.channels_innermost && batch_chunk > 0 && batch_chunk < batch;
    Var txo{"txo"}, txi{"txi"}, xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"}, chunk{"chunk"}, image{"chunk_image"};
    // The images of the output's tasks: a chunk's where chunked (whose transform is then
    // computed at `chunk`, while it is in L3), else the whole batch.
    const auto split_images = [&](Func output) -> Var {
        if (!chunked) return a.n;
        output.split(a.n, chunk, image, batch_chunk, TailStrategy::GuardWithIf);
        return image;
    };
    const auto store_per_chunk = [&](Func output) {
        if (!chunked) return;
        a.padded.compute_at(output, chunk);
        a.transformed.compute_at(output, chunk);
    };

    if (a.input_block > 0) {
        // A blocked input: the transform runs along its contiguous channels instead, stored
        // channel-innermost (the GEMM broadcasts it, so its order is free), parallel over rows
        // of tiles.
        Var cio{"cio"}, cii{"cii"}, rows{"rows"};
        schedule_blocked_padded_input(a.padded, lanes);
        a.transformed.compute_root()
            .reorder_storage(a.ci, a.tx, a.ty, a.image, a.pos)
            .split(a.ci, cio, cii, lanes, TailStrategy::RoundUp)
            .reorder(a.pos, cii, a.tx, cio, a.ty, a.image)
            .vectorize(cii)
            .unroll(a.pos)
            .fuse(a.ty, a.image, rows)
            .parallel(rows);
    } else {
        schedule_padded_input(a.padded, lanes);
        a.transformed.compute_root()
            .reorder(a.pos, a.tx, a.ty, a.image, a.ci)
            .split(a.tx, txo, txi, lanes, TailStrategy::RoundUp)
            .reorder(a.pos, txi, txo)
            .vectorize(txi)
            .unroll(a.pos)
            .parallel(a.ci);
    }

    schedule_gemm(*a.gemm, blocking, target, !a.channels_innermost);

    if (a.channels_innermost) {
        // Each parallel task computes the products of one image and one block of col_block
        // output channels (a whole group where there are groups, so that the channel within the
        // group is a loop variable and bounds inference sees the block), then transforms them
        // while they are in cache, with the channels in the lanes.
        Var group{"group"}, co{"co"}, ci{"ci"}, block{"block"};
        const int block_channels = a.groups > 1 ? a.out_per_group : blocking.col_block;
        if (a.output_block > 0) {
            // A blocked output: the same tasks, each channel block's lanes stored whole
            // (block_channels is a whole number of blocks).
            Var x{"x"}, lane{"lane"};
            const Var images = split_images(a.output);
            a.output.split(a.xv, x, lane, a.output_block)
                .split(x, xo, xi, m, TailStrategy::GuardWithIf)
                .split(a.y, yo, yi, m, TailStrategy::GuardWithIf)
                .split(a.cb, group, co, block_channels / a.output_block, TailStrategy::GuardWithIf)
                .reorder(lane, xi, yi, xo, yo, co, group, images)
                .fuse(group, images, block);
            a.output.vectorize(lane).unroll(xi).unroll(yi).parallel(block);
            a.gemm->output.compute_at(a.output, block);
            store_per_chunk(a.output);
            return;
        }
        const Var images = split_images(a.output);
        a.output.split(a.x, xo, xi, m, TailStrategy::GuardWithIf)
            .split(a.y, yo, yi, m, TailStrategy::GuardWithIf)
            .split(a.c, group, co, block_channels, TailStrategy::GuardWithIf)
            .split(co, co, ci, lanes, TailStrategy::GuardWithIf)
            .reorder(ci, xi, yi, xo, yo, co, group, images)
            .fuse(group, images, block);
        a.output.vectorize(ci).unroll(xi).unroll(yi).parallel(block);
        a.gemm->output.compute_at(a.output, block);
        store_per_chunk(a.output);
        return;
    }
    a.gemm->output.compute_root();
    a.output.split(a.x, xo, xi, m, TailStrategy::GuardWithIf)
        .split(a.y, yo, yi, m, TailStrategy::GuardWithIf)
        .reorder(xo, xi, yi, yo, a.c, a.n)
        .vectorize(xo, lanes, TailStrategy::GuardWithIf)
        .unroll(xi)
        .unroll(yi)
        .fuse(a.c, a.n, a.c)
        .parallel(a.c);
}

}  // namespace cortado::schedules::cpu
