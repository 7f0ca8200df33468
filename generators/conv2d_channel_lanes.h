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
// A panel never spans two groups (the variants' rules keep `width` a divisor of the channels
// per group), so every lane of a tile reads the same input channel.
#pragma once

#include "Halide.h"
#include "generators/conv2d.h"

namespace cortado {

struct Conv2dChannelLanes {
    Halide::Var q{"q"}, c{"c"}, n{"n"}, unit{"unit"};
    Halide::Var lane{"lane"}, panel{"panel"}, t{"t"};
    Halide::RDom r;                   // (kx, ky, ci within the group)
    Halide::Func padded{"padded"};    // as Conv2d::padded
    Halide::Func tile{"conv_lanes"};  // tile(lane, q, n, panel): lane `lane` of register tile `panel` at pixel q
    Halide::Func by_thread{"conv_by_thread"};  // GPU form: (q, lane, t, panel, n), the activation applied
    Halide::Func output{"conv2d"};             // (q, c, n, unit), the activation applied
    int width, threads;

    Conv2dChannelLanes(Halide::Func input, Halide::Func packed, Halide::Func bias, const Conv2dShape &s,
                       const ops::Epilogue &epilogue, int panel_width, int threads_per_panel = 0)
        : width(panel_width), threads(threads_per_panel) {
        using namespace Halide;
        define_padded(padded, input, s);
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
        tile(lane, q, n, panel) += packed(packed_lane, (r.z * s.kernel_h + r.y) * s.kernel_w + r.x, packed_panel) *
                                   padded(px * s.stride_w + r.x * s.dilation_w, py * s.stride_h + r.y * s.dilation_h,
                                          first_in_channel + r.z, n);
        const auto activate = [&](Expr value) {
            return epilogue.relu ? leaky_relu(value, epilogue.relu_slope) : value;
        };
        if (threads == 0) {
            output(q, c, n, unit) = activate(tile(c % width, q, n, c / width));
            return;
        }
        by_thread(q, lane, t, panel, n) = activate(tile(lane, q, n, panel * threads + t));
        output(q, c, n, unit) = by_thread(q, (c % width) / threads, c % threads, c / width, n);
    }
};

}  // namespace cortado
