// Split-K for the GPU conv variants: layers with few outputs and a long reduction split the
// input channels into `split_k` shares (rfactor) so that enough threads run. The shares are
// summed by `partial` (the reduced function's pure vars, then u), which runs as its own kernel
// through `partial_tile` (compute_root; the variant tiles it); the reduced function then adds
// the shares over `share`.
#pragma once

#include "generators/conv2d.h"

namespace cortado::schedules::gpu {

struct SplitK {
    Halide::Func partial, partial_tile;
    Halide::RVar share{"share"}, within{"within"};  // the sum over u; partial's over one share
    Halide::Var u{"u"};                             // partial's share index
};

// Splits the reduction of `sum`'s update over `input_channels` (an RDom dimension, input
// channels within the group) into `split_k` shares.
inline SplitK split_input_channels(Halide::Func sum, Halide::RVar input_channels, const Conv2dShape &s, int split_k) {
    SplitK k;
    const int in_per_group = s.in_channels / s.group;
    k.partial = sum.update()
                    .split(input_channels, k.share, k.within, (in_per_group + split_k - 1) / split_k,
                           Halide::TailStrategy::GuardWithIf)
                    .rfactor(k.share, k.u);
    k.partial_tile = k.partial.in();
    k.partial_tile.compute_root();
    return k;
}

}  // namespace cortado::schedules::gpu
