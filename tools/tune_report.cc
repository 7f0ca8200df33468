#include "tools/tune_report.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace cortado {

namespace {

std::string clipped(const std::string &text, size_t width) {
    return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

std::string ms_text(double ms) {
    if (ms < 0) return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", ms);
    return text;
}

}  // namespace

void print_progress(const TuneProgress &p, bool done) {
    static const bool terminal = ::isatty(2);
    if (!terminal && !done) return;
    char line[256];
    if (p.seconds_left < 0) {  // preparing bundles: nothing is measured here
        std::snprintf(line, sizeof line, "[%d/%d] %s: %d candidates so far (%d rejected)", p.index, p.count,
                      clipped(p.steps, 40).c_str(), p.candidates, p.rejected);
    } else {
        const int left = int(p.seconds_left + 0.5);
        std::snprintf(line, sizeof line,
                      "[%d/%d] %s: %d candidates (%d rejected), default %s ms, best %s ms, %d:%02d left", p.index,
                      p.count, clipped(p.steps, 40).c_str(), p.candidates, p.rejected, ms_text(p.default_ms).c_str(),
                      ms_text(p.best_ms).c_str(), left / 60, left % 60);
    }
    if (terminal) std::cerr << "\r\033[K";
    std::cerr << line << (done ? "\n" : "") << std::flush;
}

std::string tune_summary_table(const std::vector<TuneSummaryRow> &rows) {
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "%-40s %5s %11s %11s %8s %10s  %s\n", "steps", "count", "default ms", "tuned ms",
                  "speed-up", "tried", "choice");
    out += line;
    double default_total = 0, tuned_total = 0;
    for (const TuneSummaryRow &r : rows) {
        const bool both = r.default_ms > 0 && r.tuned_ms > 0;
        char speedup[32] = "-";
        if (both) std::snprintf(speedup, sizeof speedup, "%.2fx", r.default_ms / r.tuned_ms);
        const std::string tried =
            std::to_string(r.candidates) + (r.rejected ? " (" + std::to_string(r.rejected) + "!)" : "");
        std::snprintf(line, sizeof line, "%-40s %5d %11s %11s %8s %10s  %s\n", clipped(r.steps, 40).c_str(),
                      r.step_count, ms_text(r.default_ms).c_str(), ms_text(r.tuned_ms).c_str(), speedup, tried.c_str(),
                      r.choice.c_str());
        out += line;
        if (both) {
            default_total += r.default_ms * r.step_count;
            tuned_total += r.tuned_ms * r.step_count;
        }
    }
    if (tuned_total > 0) {
        std::snprintf(line, sizeof line,
                      "%-40s %5s %11.3f %11.3f %7.2fx   (each signature's time x its steps; n! = n rejected)\n",
                      "total", "", default_total, tuned_total, default_total / tuned_total);
        out += line;
    }
    return out;
}

}  // namespace cortado
