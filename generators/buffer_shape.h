// Layer shapes are compile-time constants: every kernel buffer is declared dense with fixed
// extents, so Halide sees static loop bounds and strides (and checks them at call time).
#pragma once

#include <vector>

#include "Halide.h"
#include "ops/batch_dimension.h"

namespace cortado {

template <typename BufferLike>
void require_dense_shape(BufferLike &&buffer, const std::vector<int> &extents) {
    int stride = 1;
    for (size_t d = 0; d < extents.size(); d++) {
        buffer.dim(d).set_bounds(0, extents[d]).set_stride(stride);
        stride *= extents[d];
    }
}

// An activation of `batch` images: dense within each image, and for a kernel whose choice is
// batch_strided (ops/choice.h) the images lie a stride apart that the caller passes. A tensor can
// then be its slice of every image of a larger one: the producers of a concatenation write it in
// place (compiler/kernel_plan.cc). The batch's dimension is ops::batch_dimension's, the rule the
// planner's views follow; where there is none, and for every other kernel, the buffer is dense.
template <typename BufferLike>
void require_activation_shape(BufferLike &&buffer, const std::vector<int> &extents, int batch, bool strided) {
    const int batch_dim = strided ? ops::batch_dimension(extents, batch) : -1;
    if (batch_dim < 0) return require_dense_shape(buffer, extents);
    int stride = 1;
    for (int d = 0; d < int(extents.size()); d++) {
        buffer.dim(d).set_bounds(0, extents[d]);
        if (d < batch_dim) buffer.dim(d).set_stride(stride);
        stride *= extents[d];
    }
}

}  // namespace cortado
