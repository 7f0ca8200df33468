#include "tools/bench/bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "compiler/json_text.h"

namespace cortado {
namespace {

nlohmann::ordered_json json_timing(const Timing &t) {
    return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}};
}

}  // namespace

bool uses_tuning_records(const NetworkPlan &plan) {
    for (const KernelInstance &k : plan.kernels) {
        if (is_record_source(k.variant_source)) return true;
        for (const auto &[knob, source] : k.knob_sources)
            if (is_record_source(source)) return true;
    }
    return false;
}

Timing timing_of(std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front(), ms.back()};
}

double relative_l2_error(const std::vector<float> &ours, const std::vector<float> &theirs) {
    if (ours.size() != theirs.size()) return INFINITY;
    double diff = 0, norm = 0;
    for (size_t i = 0; i < ours.size(); i++) {
        diff += (double(ours[i]) - theirs[i]) * (double(ours[i]) - theirs[i]);
        norm += double(theirs[i]) * theirs[i];
    }
    return std::isfinite(diff) ? std::sqrt(diff / std::max(norm, 1e-30)) : INFINITY;
}

double roofline_gflops(const BenchRow &row, const TargetDescription &target) {
    if (target.peak_gflops <= 0) return 0;
    if (row.megabytes <= 0 || target.bandwidth_gbs <= 0) return target.peak_gflops;
    const double flop_per_byte = row.gflop * 1e3 / row.megabytes;
    return std::min(target.peak_gflops, flop_per_byte * target.bandwidth_gbs);
}

// The CPU this bench ran on, from /proc/cpuinfo: its model and the vector extensions the
// kernels and peers may use.
struct HostCpu {
    std::string model = "unknown CPU", isa;
    unsigned cores = std::thread::hardware_concurrency();
};

HostCpu host_cpu() {
    HostCpu cpu;
    std::ifstream file("/proc/cpuinfo");
    std::set<std::string> flags;
    for (std::string line; std::getline(file, line);) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, colon);
        key.erase(key.find_last_not_of(" \t") + 1);
        const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
        if (key == "model name" && cpu.model == "unknown CPU") cpu.model = value;
        if (key == "flags" || key == "Features") {
            std::istringstream words(value);
            for (std::string w; words >> w;) flags.insert(w);
        }
    }
    for (const char *f :
         {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16", "asimd", "sve"})
        if (flags.count(f)) cpu.isa += (cpu.isa.empty() ? "" : " ") + std::string(f);
    if (cpu.isa.empty()) cpu.isa = "none listed";
    return cpu;
}

nlohmann::ordered_json bench_json_header(const std::string &suite, const TargetDescription &target) {
    return {{"suite", suite},
            {"target", target.name},
            {"halide_target", target.halide_target},
            {"peak_gflops", target.peak_gflops},
            {"bandwidth_gbs", target.bandwidth_gbs}};
}

void write_bench_reports(const std::vector<BenchRow> &rows, const std::string &suite, const TargetDescription &target,
                         const std::string &markdown_path, const std::string &json_path) {
    double ours = 0, theirs = 0;
    std::vector<double> ratios;
    for (const BenchRow &r : rows) {
        ours += r.ours.median_ms;
        theirs += r.theirs.median_ms;
        ratios.push_back(r.theirs.median_ms / r.ours.median_ms);
    }
    std::sort(ratios.begin(), ratios.end());
    const bool tuned = std::any_of(rows.begin(), rows.end(), [](const BenchRow &r) { return r.has_untuned; });
    std::ostringstream md;
    md << "| " << suite
       << " | GFLOP | flop/B | cortado ms (min-max) | GFLOP/s | % of roofline | peer | peer ms (min-max) | peer GFLOP/s"
          " | speed-up over peer | rel. error vs peer |"
       << (tuned ? " untuned ms (min-max) | tuned speed-up |" : "") << " unstable |\n"
       << "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|" << (tuned ? "---:|---:|" : "") << "---|\n";
    char line[1024];
    for (const BenchRow &r : rows) {
        const double roof = roofline_gflops(r, target), achieved = r.gflop / r.ours.median_ms * 1e3;
        const std::string intensity = r.megabytes > 0 ? std::to_string(int(r.gflop * 1e3 / r.megabytes + 0.5)) : "-";
        char roof_text[32] = "-";
        if (roof > 0) std::snprintf(roof_text, sizeof roof_text, "%.1f%%", 100 * achieved / roof);
        std::snprintf(
            line, sizeof line,
            "| %s | %.3f | %s | %.3f (%.3f-%.3f) | %.1f | %s | %s | %.3f (%.3f-%.3f) | %.1f | %.2f | %.1e |\n",
            r.name.c_str(), r.gflop, intensity.c_str(), r.ours.median_ms, r.ours.min_ms, r.ours.max_ms, achieved,
            roof_text, r.peer.c_str(), r.theirs.median_ms, r.theirs.min_ms, r.theirs.max_ms,
            r.gflop / r.theirs.median_ms * 1e3, r.theirs.median_ms / r.ours.median_ms, r.error);
        std::string text = line;
        if (tuned) {
            char extra[128] = " - | - |";
            if (r.has_untuned)
                std::snprintf(extra, sizeof extra, " %.3f (%.3f-%.3f) | %.2f |", r.untuned.median_ms, r.untuned.min_ms,
                              r.untuned.max_ms, r.untuned.median_ms / r.ours.median_ms);
            text.insert(text.size() - 1, extra);
        }
        text.insert(text.size() - 1, " " + (r.unstable.empty() ? std::string("") : "yes: " + r.unstable) + " |");
        md << text;
    }
    std::snprintf(line, sizeof line,
                  "\n%zu cases on %s: cortado %.2f ms in total, peers %.2f ms (speed-up %.2f); median per-case "
                  "speed-up %.2f (min %.2f, max %.2f)\n",
                  rows.size(), target.halide_target.c_str(), ours, theirs, ours > 0 ? theirs / ours : 0,
                  ratios.empty() ? 0 : ratios[ratios.size() / 2], ratios.empty() ? 0 : ratios.front(),
                  ratios.empty() ? 0 : ratios.back());
    md << line;
    const size_t unstable =
        std::count_if(rows.begin(), rows.end(), [](const BenchRow &r) { return !r.unstable.empty(); });
    if (unstable > 0)
        md << "Warning: " << unstable << " of " << rows.size()
           << " cases stayed unstable over three measurements (the \"unstable\" column says why); the totals include "
              "them.\n";
    const HostCpu cpu = host_cpu();
    md << "Host: " << cpu.model << ", " << cpu.cores << " logical CPUs; ISA: " << cpu.isa << ".\n";
    if (target.peak_gflops > 0)
        md << "Roofline of " << target.name << ": " << target.peak_gflops << " GFLOP/s peak, " << target.bandwidth_gbs
           << " GB/s (" << target.file << ").\n";
    std::cout << md.str();
    if (!markdown_path.empty()) std::ofstream(markdown_path) << md.str();
    if (json_path.empty()) return;
    nlohmann::ordered_json json = bench_json_header(suite, target);
    json["cpu"] = cpu.model;
    json["cpu_threads"] = cpu.cores;
    json["isa"] = cpu.isa;
    json["unstable_rows"] = unstable;
    json["rows"] = nlohmann::ordered_json::array();
    for (const BenchRow &r : rows) {
        nlohmann::ordered_json row{{"name", r.name},
                                   {"gflop", r.gflop},
                                   {"megabytes", r.megabytes},
                                   {"cortado", json_timing(r.ours)},
                                   {"peer", r.peer},
                                   {"peer_timing", json_timing(r.theirs)},
                                   {"roofline_gflops", roofline_gflops(r, target)},
                                   {"relative_error", r.error}};
        if (r.has_untuned) row["untuned"] = json_timing(r.untuned);
        if (!r.unstable.empty()) row["unstable"] = r.unstable;
        if (!r.layers.empty()) {
            row["layers"] = nlohmann::ordered_json::array();
            for (const BenchLayer &l : r.layers) {
                nlohmann::ordered_json layer{{"layer", l.name}, {"kind", l.kind}, {"ms", l.ms}};
                if (l.peer_ms >= 0) layer["peer_ms"] = l.peer_ms;
                row["layers"].push_back(layer);
            }
        }
        json["rows"].push_back(row);
    }
    std::ofstream(json_path) << json_text(json) << "\n";
}

}  // namespace cortado
