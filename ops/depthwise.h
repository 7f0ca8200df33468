// Which convolutions are depthwise (Halide-free). Kept apart from conv2d.h, which every
// convolution schedule includes: a rule for one variant does not change the others' versions.
#pragma once

#include "ops/conv2d.h"

namespace cortado::ops {

// Whether each output channel reads one input channel (a depthwise layer, with any number of
// outputs per input channel): the memory-bound case the depthwise variants serve.
inline bool is_depthwise(const Conv2dShape &s) { return s.group > 1 && s.in_channels == s.group; }

// Whether each output channel reads the input channel of its own number (a depthwise layer of
// one output per input channel), so that a vector of output channels reads a vector of input
// channels.
inline bool reads_own_channel(const Conv2dShape &s) { return is_depthwise(s) && s.out_channels == s.in_channels; }

}  // namespace cortado::ops
