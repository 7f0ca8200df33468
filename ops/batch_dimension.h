// Where an activation's images lie a stride apart (a slice of each image of a concatenation
// written in place at batch > 1), the dimension of its extents that steps by that stride. One
// rule for the generators that declare such buffers (generators/buffer_shape.h) and the planner
// that gives the views their stride (compiler/kernel_plan.cc), so the two always agree.
#pragma once

#include <cstdint>
#include <vector>

namespace cortado::ops {

// The outermost dimension (innermost first, never the innermost) whose extent is `batch`, with
// only ones after it; -1 where there is none, or at batch 1.
inline int batch_dimension(const std::vector<int> &extents, int64_t batch) {
    for (int d = int(extents.size()) - 1; d >= 1 && batch > 1; d--) {
        if (extents[d] == batch) return d;
        if (extents[d] != 1) return -1;
    }
    return -1;
}

}  // namespace cortado::ops
