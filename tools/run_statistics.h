// The figures `cortado run` reports for a set of timed runs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace cortado {

struct RunStatistics {
    double median_ms = 0, mean_ms = 0, p90_ms = 0, p99_ms = 0, min_ms = 0, max_ms = 0, images_per_s = 0;
};

// Percentiles by the nearest rank; images per second from the median.
inline RunStatistics run_statistics(std::vector<double> runs_ms, int64_t batch) {
    RunStatistics s;
    if (runs_ms.empty()) return s;
    std::sort(runs_ms.begin(), runs_ms.end());
    const auto rank = [&](double p) {
        const size_t nearest = size_t(std::ceil(p * double(runs_ms.size())));
        return runs_ms[std::min(runs_ms.size(), std::max<size_t>(nearest, 1)) - 1];
    };
    s.median_ms = rank(0.5);
    s.mean_ms = std::accumulate(runs_ms.begin(), runs_ms.end(), 0.0) / runs_ms.size();
    s.p90_ms = rank(0.9);
    s.p99_ms = rank(0.99);
    s.min_ms = runs_ms.front();
    s.max_ms = runs_ms.back();
    s.images_per_s = s.median_ms > 0 ? batch * 1e3 / s.median_ms : 0;
    return s;
}

}  // namespace cortado
