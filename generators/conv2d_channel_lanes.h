// Convolution with the output channels in the vector lanes (the *_channel_lanes direct variants):
// Conv2d's sum over (kx, ky, ci), with two changes of indexing that its schedules need:
// - the weights come packed at create time in panels of `width` output channels
//   (ops::WeightPacking::ColumnPanels): packed(lane, k, panel) with k = (ci·kernel_h + ky)·kernel_w
//   + kx, so a vector of output channels is one contiguous load;
// - each image's output pixels are numbered in one sequence q = y·out_w + x, and the kernel
//   reads and writes the output as (q, c, n, 1): a register tile of pixels may cross rows, so
//   the map's width no longer decides how full the tile is. (Tiles do not cross images: the
//   tile's pixels must be an interval of the loop its schedule computes it in.)
// A panel never spans two groups (the variant's rule keeps `width` a divisor of the channels per
// group), so every lane of a tile reads the same input channel.
#pragma once

#include "Halide.h"
#include "generators/conv2d.h"

namespace cortado {

struct Conv2dChannelLanes {
    Halide::Var q{"q"}, c{"c"}, n{"n"}, unit{"unit"};
    Halide::Var lane{"lane"}, panel{"panel"};
    Halide::RDom r;                       // (kx, ky, ci within the group)
    Halide::Func padded{"padded"};        // as Conv2d::padded
    Halide::Func tile{"conv_lanes"};      // tile(lane, q, n, panel): channel panel·width + lane at pixel q
    Halide::Func output{"conv2d"};        // (q, c, n, unit), the activation applied
    int width;

    Conv2dChannelLanes(Halide::Func input, Halide::Func packed, Halide::Func bias, const Conv2dShape &s,
                       const ops::Epilogue &epilogue, int panel_width)
        : width(panel_width) {
        using namespace Halide;
        define_padded(padded, input, s);
        const int in_per_group = s.in_channels / s.group, out_per_group = s.out_channels / s.group;
        r = RDom(0, s.kernel_w, 0, s.kernel_h, 0, in_per_group, "r");
        Expr px = q % s.out_w, py = q / s.out_w;
        Expr first_in_channel = s.group == 1 ? Expr(0) : (panel * width / out_per_group) * in_per_group;
        // Lanes past the last channel read the zero-padded panel and a clamped bias; never stored.
        tile(lane, q, n, panel) = epilogue.bias ? bias(min(panel * width + lane, s.out_channels - 1)) : Expr(0.0f);
        tile(lane, q, n, panel) += packed(lane, (r.z * s.kernel_h + r.y) * s.kernel_w + r.x, panel) *
                                   padded(px * s.stride_w + r.x * s.dilation_w, py * s.stride_h + r.y * s.dilation_h,
                                          first_in_channel + r.z, n);
        Expr value = tile(c % width, q, n, c / width);
        if (epilogue.relu) value = leaky_relu(value, epilogue.relu_slope);
        output(q, c, n, unit) = value;
    }
};

}  // namespace cortado
