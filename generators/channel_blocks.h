// The channel-blocked layout (ops::Layout: `block` channels per block, each block's pixels with
// its channels innermost) as the generators index it. An NCHW-shaped array (x, ..., c, ...) is
// stored blocked as (block·x + c % block, ..., c / block, ...): these map an element's NCHW
// coordinates to its blocked ones and back.
#pragma once

#include "Halide.h"

namespace cortado {

// The blocked array's first coordinate, and the block, of NCHW element (x, c).
inline Halide::Expr blocked_column(const Halide::Expr &x, const Halide::Expr &c, int block) {
    return c % block + block * x;
}
inline Halide::Expr channel_block(const Halide::Expr &c, int block) { return c / block; }

// The NCHW x, and channel, of blocked element (v, block cb).
inline Halide::Expr nchw_column(const Halide::Expr &v, int block) { return v / block; }
inline Halide::Expr nchw_channel(const Halide::Expr &v, const Halide::Expr &cb, int block) {
    return cb * block + v % block;
}

}  // namespace cortado
