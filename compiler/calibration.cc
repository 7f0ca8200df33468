#include "compiler/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "frontend/compile_error.h"
#include "frontend/int8_precision.h"

namespace cortado {

CalibrationMethod parse_calibration_method(const std::string &text) {
    if (text == "minmax") return CalibrationMethod::MinMax;
    if (text == "percentile") return CalibrationMethod::Percentile;
    if (text == "entropy") return CalibrationMethod::Entropy;
    throw CompileError("unknown calibration method '" + text + "': give minmax, percentile or entropy");
}

std::string calibration_method_name(CalibrationMethod m) {
    switch (m) {
    case CalibrationMethod::Percentile: return "percentile";
    case CalibrationMethod::Entropy: return "entropy";
    case CalibrationMethod::MinMax: break;
    }
    return "minmax";
}

bool needs_histogram(CalibrationMethod m) { return m != CalibrationMethod::MinMax; }

void ActivationRange::observe_range(const float *values, int64_t count) {
    for (int64_t i = 0; i < count; i++) {
        const double v = values[i];
        if (!std::isfinite(v)) continue;
        if (!seen_) min_ = max_ = v, seen_ = true;
        min_ = std::min(min_, v), max_ = std::max(max_, v);
    }
}

void ActivationRange::observe_values(const float *values, int64_t count) {
    if (histogram_.empty()) histogram_.assign(kBins, 0.0), magnitudes_.assign(kBins, 0.0);
    const double width = (max_ - min_) / kBins;
    const double magnitude_width = std::max(std::abs(min_), std::abs(max_)) / kBins;
    const auto bin = [](double offset, double w) { return w > 0 ? std::clamp(int(offset / w), 0, kBins - 1) : 0; };
    for (int64_t i = 0; i < count; i++) {
        const double v = values[i];
        if (!std::isfinite(v)) continue;
        histogram_[size_t(bin(v - min_, width))] += 1;
        magnitudes_[size_t(bin(std::abs(v), magnitude_width))] += 1;
    }
}

namespace {

// The value below which `fraction` of the histogram's mass lies (linear within a bin).
double quantile(const std::vector<double> &histogram, double lo, double hi, double fraction) {
    double total = 0;
    for (double h : histogram) total += h;
    const double target = fraction * total, width = (hi - lo) / double(histogram.size());
    double below = 0;
    for (size_t b = 0; b < histogram.size(); b++) {
        if (below + histogram[b] >= target && histogram[b] > 0)
            return lo + width * (double(b) + (target - below) / histogram[b]);
        below += histogram[b];
    }
    return hi;
}

// A distribution with every empty bin given a small share of the mass (taken from the others in
// proportion), so that the divergence stays finite where the quantized histogram empties a bin
// the clipped one fills, as the clipped outliers' last bin does.
std::vector<double> smoothed(const std::vector<double> &h) {
    constexpr double kShare = 1e-4;
    double total = 0;
    size_t empty = 0;
    for (double v : h) total += v, empty += v <= 0;
    std::vector<double> out(h.size());
    if (total <= 0 || empty == h.size()) return out;
    const double given = kShare * total / double(h.size()), taken = given * double(empty) / (total);
    for (size_t i = 0; i < h.size(); i++) out[i] = h[i] <= 0 ? given : h[i] * (1 - taken);
    return out;
}

// Kullback-Leibler divergence of q from p (both unnormalised, over the same bins), smoothed.
double divergence(const std::vector<double> &raw_p, const std::vector<double> &raw_q) {
    const std::vector<double> p = smoothed(raw_p), q = smoothed(raw_q);
    double p_total = 0, q_total = 0;
    for (size_t i = 0; i < p.size(); i++) p_total += p[i], q_total += q[i];
    if (p_total <= 0 || q_total <= 0) return std::numeric_limits<double>::infinity();
    double d = 0;
    for (size_t i = 0; i < p.size(); i++)
        if (p[i] > 0) d += p[i] / p_total * std::log((p[i] / p_total) / (q[i] / q_total));
    return d;
}

// TensorRT's entropy calibration on a histogram of |x|: the threshold (a bin edge) whose
// clipped histogram, merged into `levels` levels and spread back, diverges least from the
// clipped original.
double entropy_threshold(const std::vector<double> &magnitudes, double max_magnitude, int levels) {
    const int bins = int(magnitudes.size());
    const double width = max_magnitude / bins;
    double best = std::numeric_limits<double>::infinity();
    int best_edge = bins;
    for (int edge = levels; edge <= bins; edge++) {
        std::vector<double> p(magnitudes.begin(), magnitudes.begin() + edge);
        for (int b = edge; b < bins; b++) p.back() += magnitudes[size_t(b)];  // the clipped mass
        std::vector<double> q(size_t(edge), 0.0);
        for (int level = 0; level < levels; level++) {
            const int begin = level * edge / levels, end = (level + 1) * edge / levels;
            double sum = 0;
            int nonzero = 0;
            for (int b = begin; b < end; b++) sum += magnitudes[size_t(b)], nonzero += magnitudes[size_t(b)] > 0;
            for (int b = begin; b < end; b++)
                if (magnitudes[size_t(b)] > 0) q[size_t(b)] = sum / nonzero;
        }
        const double d = divergence(p, q);
        if (d < best) best = d, best_edge = edge;
    }
    return width * best_edge;
}

}  // namespace

std::pair<double, double> ActivationRange::kept_range(CalibrationMethod method, double percentile) const {
    double lo = min_, hi = max_;
    if (method != CalibrationMethod::MinMax && histogram_.empty())
        throw CompileError("calibration: the " + calibration_method_name(method) + " method needs a histogram");
    if (method == CalibrationMethod::Percentile) {
        const double tail = (100.0 - percentile) / 100.0;
        if (min_ < 0) lo = quantile(histogram_, min_, max_, tail);
        hi = quantile(histogram_, min_, max_, 1.0 - tail);
    } else if (method == CalibrationMethod::Entropy) {
        const double magnitude = std::max(std::abs(min_), std::abs(max_));
        // A tensor of both signs spends about half the levels on each; one of one sign all of them.
        const double threshold = entropy_threshold(magnitudes_, magnitude, min_ < 0 && max_ > 0 ? 128 : 255);
        lo = std::max(min_, -threshold), hi = std::min(max_, threshold);
    }
    return {std::min(lo, 0.0), std::max(hi, 0.0)};
}

Int8Input quantization_of_range(double lo, double hi) {
    Int8Input q;
    // A constant zero tensor, or one too narrow for a usable float scale: any scale is exact, or
    // as good as exact.
    if (!(hi > lo) || !int8_scale_usable(float((hi - lo) / 255.0))) return q;
    if (lo >= 0) {
        q.scale = float(hi / 255.0);
        q.zero_point = 0;
        return q;
    }
    q.scale = float((hi - lo) / 255.0);
    q.zero_point = std::clamp(int(std::nearbyint(-lo / q.scale)), 0, 255);
    return q;
}

}  // namespace cortado
