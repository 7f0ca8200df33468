// Convolution with the output channels in the vector lanes (the *_channel_lanes direct variants):
// Conv2d's sum over (kx, ky, ci), with two changes of indexing that its schedules need:
// - the weights come packed at create time in panels of `width` output channels
//   (ops::WeightPacking::ColumnPanels): packed(lane, k, panel) with k = (ci·kernel_h + ky)·kernel_w
//   + kx, so a vector of output channels is one contiguous load;
// - each image's output pixels are numbered in one sequence q = y·out_w + x, and the kernel
//   reads and writes the output as (q, c, n, 1): a register tile of pixels may cross rows, so
//   the map's width no longer decides how full the tile is. (Tiles do not cross images: the
//   tile's pixels must be an interval of the loop its schedule computes it in.)
// On CPUs a register tile is a whole panel. On GPUs (`threads` > 0) a panel is shared by
// `threads` threads side by side in a warp, each owning every threads-th channel of it
// (`width / threads` channels, strided): at each reduction step the warp's j-th weight load is
// one contiguous run of the panel. The output channel of a thread's lane is then a strided
// function of c that bounds inference cannot invert, so the GPU form writes `by_thread`
// (q, j, t, panel, n) and `output` copies it into place.
// Channel-blocked tensors (ops::Layout, block b): a blocked input arrives as (b·in_w, in_h,
// C/b, N) and `padded` is then that array zero-padded (define_blocked_padded); a blocked output
// is written as (b·q + lane, C/b, N, 1), whole vectors of a panel stored in place.
// A panel never spans two groups (the variants' rules keep `width` a divisor of the channels
// per group), so every lane of a tile reads the same input channel; except in a depthwise layer
// with one output channel per input channel, where each lane reads its own channel: the input is
// then read in blocks (its own, if they divide the panel), an NCHW input staged into blocks of
// the panel's width (define_padded_in_blocks), so that a vector of lanes is one load, not a
// gather across planes.
#pragma once

#include "Halide.h"
#include "generators/conv2d.h"
#include "ops/depthwise.h"

namespace cortado {

struct Conv2dChannelLanes {
    Halide::Var q{"q"}, c{"c"}, n{"n"}, unit{"unit"};
    Halide::Var lane{"lane"}, panel{"panel"}, t{"t"};
    Halide::Var v{"v"}, block{"block"};  // a blocked output's (b·q + lane, block)
    Halide::RDom r;                   // (kx, ky, ci within the group)
    Halide::Func padded{"padded"};    // as Conv2d::padded
    Halide::Func tile{"conv_lanes"};  // tile(lane, q, n, panel): lane `lane` of register tile `panel` at pixel q
    Halide::Func by_thread{"conv_by_thread"};  // GPU form: (q, lane, t, panel, n), the activation applied
    Halide::Func output{"conv2d"};  // (q, c, n, unit), or blocked (v, block, n, unit); the activation applied
    int width, threads, input_block, output_block;
    int padded_block = 0;  // the channel block `padded` is stored in; 0: NCHW

    Conv2dChannelLanes(Halide::Func input, Halide::Func packed, Halide::Func bias, const Conv2dShape &s,
                       const ops::Epilogue &epilogue, int panel_width, int threads_per_panel = 0,
                       int input_channel_block = 0, int output_channel_block = 0, Halide::Func residual = Halide::Func())
        : width(panel_width), threads(threads_per_panel), input_block(input_channel_block),
          output_block(output_channel_block) {
        using namespace Halide;
        const bool lane_channels = threads == 0 && ops::reads_own_channel(s);
        // Lanes that read their own channel read blocks of the panel's width, or narrower ones
        // that divide it (the schedule's vectors are then one block).
        const bool staged = lane_channels && (input_block == 0 || width % input_block != 0);
        padded_block = staged ? width : input_block;
        if (staged) define_padded_in_blocks(padded, input, s, width, input_block);
        else if (input_block > 0) define_blocked_padded(padded, input, s, input_block);
        else define_padded(padded, input, s);
        const int in_per_group = s.in_channels / s.group, out_per_group = s.out_channels / s.group;
        r = RDom(0, s.kernel_w, 0, s.kernel_h, 0, in_per_group, "r");
        Expr px = q % s.out_w, py = q / s.out_w;
        // The channel of each lane, where it sits in the packed panels, and its panel's first.
        Expr channel = panel * width + lane, packed_lane = lane, packed_panel = panel;
        if (threads > 0) {
            packed_panel = panel / threads;
            packed_lane = lane * threads + panel % threads;
            channel = packed_panel * width + packed_lane;
        }
        Expr first_in_channel = s.group == 1 ? Expr(0) : (packed_panel * width / out_per_group) * in_per_group;
        // Lanes past the last channel read the zero-padded panel and a clamped bias; never stored.
        tile(lane, q, n, panel) = epilogue.bias ? bias(min(channel, s.out_channels - 1)) : Expr(0.0f);
        const Expr in_x = px * s.stride_w + r.x * s.dilation_w, in_y = py * s.stride_h + r.y * s.dilation_h;
        const Expr in_c = lane_channels ? channel : first_in_channel + r.z;
        tile(lane, q, n, panel) += packed(packed_lane, (r.z * s.kernel_h + r.y) * s.kernel_w + r.x, packed_panel) *
                                   read_padded(padded, padded_block, in_x, in_y, in_c, n);
        // The residual is read where the output is written: at the output's coordinates.
        const auto activate = [&](Expr value, std::vector<Expr> at) {
            return fused_activations(value, epilogue, residual_at(residual, at));
        };
        if (threads == 0 && output_block > 0) {
            // b divides the panel width: block `block` is the (block % blocks)-th of its panel.
            const int blocks = width / output_block;
            output(v, block, n, unit) = activate(
                tile(nchw_channel(v, block % blocks, output_block), nchw_column(v, output_block), n, block / blocks),
                {v, block, n, unit});
            return;
        }
        if (threads == 0) {
            output(q, c, n, unit) = activate(tile(c % width, q, n, c / width), {q, c, n, unit});
            return;
        }
        // A thread's lane holds channel (panel · width + lane · threads + t). The schedules may
        // compute lanes past the last channel or pixel, never stored: their residual reads are
        // clamped into the tensor.
        const Expr thread_channel = min(panel * width + lane * threads + t, s.out_channels - 1);
        const Expr pixel = min(q, s.out_w * s.out_h - 1);
        by_thread(q, lane, t, panel, n) =
            activate(tile(lane, q, n, panel * threads + t), {pixel, thread_channel, n, 0});
        output(q, c, n, unit) = by_thread(q, (c % width) / threads, c % threads, c / width, n);
    }
};

}  // namespace cortado
