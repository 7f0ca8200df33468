// Layer shapes are compile-time constants: every kernel buffer is declared dense with fixed
// extents, so Halide sees static loop bounds and strides (and checks them at call time).
#pragma once

#include <vector>

#include "Halide.h"

namespace cortado {

template <typename BufferLike>
void require_dense_shape(BufferLike &&buffer, const std::vector<int> &extents) {
    int stride = 1;
    for (size_t d = 0; d < extents.size(); d++) {
        buffer.dim(d).set_bounds(0, extents[d]).set_stride(stride);
        stride *= extents[d];
    }
}

}  // namespace cortado
