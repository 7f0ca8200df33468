// What `cortado bench` reports: one row per case with both sides' median and spread, GFLOP/s,
// the fraction of the target's roofline, the ratio to the peer and the checked error; written
// as a markdown table and as JSON (which tools/bench/bench_plots.py turns into PNG plots).
#pragma once

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"

namespace cortado {

struct Timing {
    double median_ms = 0, min_ms = 0, max_ms = 0;
};

// The median, fastest and slowest of some run times (at least one).
Timing timing_of(std::vector<double> ms);

// Thread pools keep spinning for a while after their last call (OpenBLAS for about 0.1 s,
// OpenMP runtimes and Halide's workers for milliseconds), taking cores from whatever runs next:
// each side's timing starts once the other side's threads have gone idle.
inline void let_spinning_threads_settle() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }

// Runs `run` and returns the milliseconds it took.
template <typename Run>
double wall_ms(Run run) {
    const auto start = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Times `iterations` calls of `run` (warming up is the caller's).
template <typename Run>
Timing time_calls(int iterations, Run run) {
    std::vector<double> ms;
    for (int i = 0; i < iterations; i++) ms.push_back(wall_ms(run));
    return timing_of(std::move(ms));
}

// Times `iterations` calls of each of two runs (each returns the milliseconds it took), in
// alternating blocks so that a change in the machine's speed hits both alike. The two are
// separate libraries with thread pools of their own: alternated call by call, each side ran
// beside the other's still-spinning workers, so every block starts once the other side's threads
// have settled, with one untimed call.
struct AlternatingTimings {
    Timing first, second;
};
template <typename RunA, typename RunB>
AlternatingTimings time_alternating(int iterations, RunA a, RunB b) {
    constexpr int kBlock = 5;
    std::vector<double> ms_a, ms_b;
    const auto block = [](auto &run, int calls, std::vector<double> &ms) {
        let_spinning_threads_settle();
        run();
        for (int i = 0; i < calls; i++) ms.push_back(run());
    };
    for (int done = 0; done < iterations; done += kBlock) {
        const int calls = std::min(kBlock, iterations - done);
        block(a, calls, ms_a);
        block(b, calls, ms_b);
    }
    return {timing_of(std::move(ms_a)), timing_of(std::move(ms_b))};
}

// One step of a network case (bench nets): cortado's time inside the whole network, from
// profiled runs, and the peer's time for the same layer alone, where it has one.
struct BenchLayer {
    std::string name;  // the step: its layers joined by '+' ("conv1+relu1")
    std::string kind;  // "conv 3x3", "conv 7x7 s2", "conv 5x5 g2", "inner product", else the Caffe type
    double ms = 0;
    double peer_ms = -1;  // -1: the peer has no such layer (pooling, LRN, concatenation, ...)
};

struct BenchRow {
    std::string name;
    double gflop = 0;
    double megabytes = 0;  // compulsory memory traffic (inputs, weights, output once); 0: unknown
    Timing ours;
    std::string peer;
    Timing theirs;
    double error = 0;  // relative L2 error of cortado's output against the peer's
    // Where tuning records changed some kernel: cortado without them, timed alternately with `ours`.
    bool has_untuned = false;
    Timing untuned;
    // Why the timing cannot be trusted after the reruns (tools/machine_load.h); "" when steady.
    std::string unstable = "";
    std::vector<BenchLayer> layers = {};  // bench nets only
};

// Whether some kernel of `plan` took its variant or a knob from a tuning record.
bool uses_tuning_records(const NetworkPlan &plan);

// ||ours - theirs|| / ||theirs||; +inf when the sizes differ or a value is not finite.
double relative_l2_error(const std::vector<float> &ours, const std::vector<float> &theirs);

// Attainable GFLOP/s for a row on the target: min(peak, intensity x bandwidth); the peak alone
// when the row's traffic is unknown; 0 when the description gives no peak.
double roofline_gflops(const BenchRow &row, const TargetDescription &target);

// The fields every suite JSON file starts with ("suite", "target", "halide_target", the
// roofline); tools/bench/gpu_bench.py and tools/bench/bench_plots.py read them.
nlohmann::ordered_json bench_json_header(const std::string &suite, const TargetDescription &target);

// Prints the markdown table and writes --markdown / --json files when asked.
void write_bench_reports(const std::vector<BenchRow> &rows, const std::string &suite, const TargetDescription &target,
                         const std::string &markdown_path, const std::string &json_path);

}  // namespace cortado
