// The filler a learned blob was declared with (Caffe's weight fillers, runtime/fillers.h makes
// their values). Apart from fillers.h so that a network's glue, which only describes its blobs,
// compiles without the standard library's string and vector headers: most of the time a small
// network takes to compile and link is spent parsing headers.
#pragma once

#include <cstdint>

namespace cortado {

enum class FillerType : int {
    Unsupported = -1,  // a Caffe filler cortado does not implement; such weights must be given
    Constant = 0,
    Gaussian = 1,
    Uniform = 2,
    Xavier = 3,
    Msra = 4,
    BatchNormMean = 5,      // gaussian(0, 0.1)
    BatchNormVariance = 6,  // uniform(0.5, 1.5)
    Folded = 7,             // `value` everywhere, never read from a weights file: a blob folds write
};

enum class VarianceNorm : int { FanIn = 0, FanOut = 1, Average = 2 };

struct FillerSpec {
    FillerType type;
    float value, min, max, mean, std;
    VarianceNorm variance_norm;
};

}  // namespace cortado
