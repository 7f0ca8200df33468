#include "compiler/tuner/candidate_check.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

#include "compiler/child_processes.h"
#include "compiler/loaded_network.h"
#include "compiler/network_weights.h"
#include "compiler/tuner/stop_signals.h"
#include "frontend/compile_error.h"

namespace cortado {

namespace {

// Far more than the 11 timed runs of any layer that is worth running need.
constexpr unsigned kMeasureSeconds = 300;

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// What the child writes to its parent: "measured ERROR MEDIAN MIN MAX COUNT" or
// "rejected ERROR REASON".
std::string check_and_time(const std::string &library, const LayerReference &reference, const CandidateMeasure &how) {
    std::ostringstream result;
    result.precision(17);
    LoadedNetwork net(library, "net");
    net.create(nullptr, how.seed);
    const float *input = reference.input.data();
    std::vector<float> output(reference.expected.data.size(), std::nanf(""));
    const auto start = Clock::now();
    net.forward(input, output.data());
    const double first_ms = milliseconds_since(start);
    const double error = reference::relative_l2_error(output.data(), reference.expected);
    if (!(error <= how.tolerance)) {
        // A NaN or infinite error goes as -1: the parent reads a number there.
        result << "rejected " << (std::isfinite(error) ? error : -1.0) << " relative L2 error " << error
               << " above the variant's tolerance " << how.tolerance;
        return result.str();
    }
    int timed_step = -1;  // how.step's index
    for (int l = 0; l < net.layer_count() && !how.step.empty(); l++)
        if (net.layer_name(l) == how.step) timed_step = l;
    if (!how.step.empty() && timed_step < 0) {
        result << "rejected " << error << " the library has no step " << how.step << " to time";
        return result.str();
    }
    std::vector<double> ms;
    if (how.timing == CandidateTiming::LayerProfile) net.set_profiling(true);
    // Tiny layers repeat within one wall-clock timing, so that a timing is not mostly clock reads.
    const int inner = how.timing == CandidateTiming::Forward
                          ? int(std::clamp(std::ceil(1.0 / std::max(first_ms, 1e-3)), 1.0, 100.0))
                          : 1;
    const auto time_once = [&] {
        const auto t0 = Clock::now();
        for (int r = 0; r < inner; r++) net.forward(input, output.data());
        if (how.timing == CandidateTiming::Forward) {
            ms.push_back(milliseconds_since(t0) / inner);
            return;
        }
        double layers = 0;
        for (int l = 0; l < net.layer_count(); l++) layers += net.layer_time_ms(l);
        ms.push_back(timed_step >= 0 ? net.layer_time_ms(timed_step) : layers);
    };
    time_once();  // warm-up: the first call after loading touches memory the rest reuse
    ms.clear();
    for (int r = 0; r < 3; r++) time_once();
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    if (how.best_ms < 0 || sorted[1] < 1.25 * how.best_ms)
        for (int r = 0; r < 7; r++) time_once();
    std::sort(ms.begin(), ms.end());
    if (!std::all_of(ms.begin(), ms.end(), [](double t) { return std::isfinite(t) && t >= 0; })) {
        result << "rejected " << error << " its timings read " << ms.front() << " to " << ms.back() << " ms";
        return result.str();
    }
    result << "measured " << error << " " << ms[ms.size() / 2] << " " << ms.front() << " " << ms.back() << " "
           << ms.size();
    return result.str();
}

CandidateRun parse_report(const std::string &text, int status) {
    CandidateRun run;
    std::istringstream in(text);
    std::string outcome;
    in >> outcome;
    if (outcome == "measured") {
        in >> run.error >> run.median_ms >> run.min_ms >> run.max_ms >> run.repetitions;
        if (in && run.median_ms >= 0) run.outcome = CandidateRun::Outcome::Measured;
        else run.reason = "the candidate's report could not be read: " + text;
    } else if (outcome == "rejected") {
        in >> run.error;
        std::getline(in >> std::ws, run.reason);
        if (run.reason.empty()) run.reason = "the candidate failed without saying why: " + text;
    } else {
        run.reason = "the candidate's process " + describe_wait_status(status) + " before it reported";
    }
    return run;
}

}  // namespace

LayerReference layer_reference(const Graph &graph, const NetworkPlan &plan, uint64_t seed, const std::string &layer) {
    LayerReference r;
    r.input.resize(size_t(element_count(graph.values[graph.inputs[0]].shape)));
    std::mt19937_64 random(seed + 0x5eed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &v : r.input) v = uniform(random);
    const reference::Tensor in{graph.values[graph.inputs[0]].shape, std::vector<double>(r.input.begin(), r.input.end())};
    try {
        r.expected = reference::run_graph(graph, reference_weights(seeded_weights(plan, seed)), {in})[graph.outputs[0]];
    } catch (const std::runtime_error &e) {
        throw CompileError(layer + ": the reference cannot run it: " + e.what());
    }
    return r;
}

CandidateRun measure_candidate(const std::string &library, const LayerReference &reference,
                               const CandidateMeasure &how, const std::function<bool()> &stop) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
        throw CompileError("cannot create a pipe: " + std::string(std::strerror(errno)));
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        throw CompileError("cannot start a measuring process: " + std::string(std::strerror(errno)));
    }
    if (pid == 0) {
        default_stop_signals();
        ::alarm(kMeasureSeconds);  // a hung candidate is killed, and rejected
        ::close(pipe_fds[0]);
        std::string text;
        try {
            text = check_and_time(library, reference, how);
        } catch (const std::exception &e) {
            text = std::string("rejected -1 ") + e.what();
        }
        ssize_t ignored = ::write(pipe_fds[1], text.data(), text.size());
        (void)ignored;
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string text;
    char buffer[4096];
    bool ended_for_stop = false;
    for (;;) {
        pollfd readable{pipe_fds[0], POLLIN, 0};
        const int ready = ::poll(&readable, 1, 100);
        if (ready == 0 || (ready < 0 && errno == EINTR)) {
            if (!ended_for_stop && stop && stop()) {
                ::kill(pid, SIGTERM);
                ended_for_stop = true;
            }
            continue;
        }
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n > 0) text.append(buffer, size_t(n));
        else if (n == 0 || errno != EINTR) break;
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    CandidateRun run;
    if (ended_for_stop || ended_by_stop_signal(status)) {
        run.outcome = CandidateRun::Outcome::Interrupted;
        return run;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
        run.outcome = CandidateRun::Outcome::KilledFromOutside;
        run.reason = kKilledFromOutside;
        return run;
    }
    return parse_report(text, status);
}

}  // namespace cortado
