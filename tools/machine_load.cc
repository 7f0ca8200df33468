#include "tools/machine_load.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace cortado {

CpuTimes sample_cpu_times() {
    CpuTimes t;
    const double tick = double(sysconf(_SC_CLK_TCK));
    std::ifstream stat("/proc/stat");
    std::string cpu;
    long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal)
        t.all_busy_s = double(user + nice + system + irq + softirq) / tick;
    std::ifstream self("/proc/self/stat");
    std::string line;
    std::getline(self, line);
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15,
    // and cutime 16, cstime 17: the children this process has waited for (a peer run in a process
    // of its own, a kernel compiled in a child) are its own work, not another process's.
    const size_t close = line.rfind(')');
    if (close != std::string::npos) {
        std::istringstream fields(line.substr(close + 2));
        std::string field;
        long long ticks = 0;
        for (int index = 3; fields >> field && index <= 17; index++)
            if (index >= 14) ticks += std::atoll(field.c_str());
        t.own_s = double(ticks) / tick;
    }
    t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return t;
}

double other_busy_cores(const CpuTimes &before, const CpuTimes &after) {
    // /proc/stat counts in ticks of 10 ms per core: shorter windows cannot tell.
    const double wall = after.wall_s - before.wall_s;
    if (wall < 0.5) return 0;
    const double others = (after.all_busy_s - before.all_busy_s) - (after.own_s - before.own_s);
    return std::max(0.0, others / wall);
}

std::string instability(const std::vector<double> &runs_ms, double other_cores) {
    std::string why;
    char text[160];
    if (runs_ms.size() >= 3) {
        // The 90th percentile against the fastest: one preemption in a long run is no spread.
        std::vector<double> sorted = runs_ms;
        std::sort(sorted.begin(), sorted.end());
        const double low = sorted.front(), p90 = sorted[size_t(std::ceil(0.9 * double(sorted.size()))) - 1];
        if (low > 0 && p90 / low > 1.5) {
            std::snprintf(text, sizeof text, "the 90th percentile run took %.1fx the fastest", p90 / low);
            why = text;
        }
    }
    if (other_cores > 0.25) {
        std::snprintf(text, sizeof text, "other processes kept %.1f cores busy", other_cores);
        why += (why.empty() ? "" : "; ") + std::string(text);
    }
    return why;
}

}  // namespace cortado
