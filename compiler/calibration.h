// Calibration of activation ranges for int8 (`cortado quantize`): the values a tensor takes over
// the calibration images, and the range a method keeps of them, from which come the scale and
// zero point its consumer quantizes with (ops/conv2d_int8.h).
//   - minmax: the whole range seen;
//   - percentile: the range between the (100 - p)th and the pth percentiles (p = 99.99 unless
//     given), which clips rare outliers;
//   - entropy: TensorRT's method: the clipping threshold of |x| whose quantized histogram is
//     nearest the full one in Kullback-Leibler divergence.
// Methods that clip need a histogram, which needs the range first: the tensor is observed in two
// passes over the images, `observe_range` then `observe_values`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/layer_params.h"

namespace cortado {

enum class CalibrationMethod { MinMax, Percentile, Entropy };

// "minmax", "percentile" or "entropy"; throws CompileError otherwise.
CalibrationMethod parse_calibration_method(const std::string &text);
std::string calibration_method_name(CalibrationMethod m);
bool needs_histogram(CalibrationMethod m);

class ActivationRange {
  public:
    static constexpr int kBins = 2048;

    void observe_range(const float *values, int64_t count);
    void observe_values(const float *values, int64_t count);  // after every observe_range
    double min() const { return min_; }
    double max() const { return max_; }
    // The range the method keeps, always containing 0 (so that zero padding stays exact).
    // `percentile`: for CalibrationMethod::Percentile.
    std::pair<double, double> kept_range(CalibrationMethod method, double percentile = 99.99) const;

  private:
    double min_ = 0, max_ = 0;
    bool seen_ = false;
    std::vector<double> histogram_;   // of x over [min, max]
    std::vector<double> magnitudes_;  // of |x| over [0, max |x|]
};

// The u8 quantization of [lo, hi] (lo <= 0 <= hi): zero point 0 for a range that is not negative.
Int8Input quantization_of_range(double lo, double hi);

}  // namespace cortado
