// Whether a timing can be trusted: how busy the machine's cores were with other processes while
// it ran (from /proc/stat against this process's own CPU time), and the spread of its runs.
#pragma once

#include <string>
#include <vector>

namespace cortado {

struct CpuTimes {
    double all_busy_s = 0;  // every process on every core
    double own_s = 0;       // this process (its threads and the children it waited for included)
    double wall_s = 0;
};

CpuTimes sample_cpu_times();

// The cores' worth of other processes' work between two samples: 0.5 = half a core busy.
double other_busy_cores(const CpuTimes &before, const CpuTimes &after);

// "" when the runs look steady; else why not: their 90th percentile above 1.5x the fastest (with
// 3 runs or more), or other processes keeping more than a quarter of a core busy (measured over
// half a second or more).
std::string instability(const std::vector<double> &runs_ms, double other_cores);

}  // namespace cortado
