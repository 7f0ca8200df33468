// The vector width for a row of a memory-bound op on the CPU.
#pragma once

#include "Halide.h"

namespace cortado::schedules::cpu {

// The widest vector of at most the target's width that fits a row of `width`: AlexNet's 13- and
// 27-wide maps on AVX-512 take half or quarter vectors rather than scalar code.
inline int row_vector(int width, const Halide::Target &target) {
    int vec = target.natural_vector_size<float>();
    while (vec > 4 && width < vec) vec /= 2;
    return vec;
}

}  // namespace cortado::schedules::cpu
