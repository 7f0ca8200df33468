#include "tools/tune_measure.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include "compiler/child_processes.h"
#include "compiler/loaded_network.h"
#include "compiler/network_builder.h"
#include "compiler/network_weights.h"
#include "frontend/compile_error.h"
#include "tools/cli_environment.h"
#include "tools/tune_candidates.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

bool has_choices(const std::string &family, const std::string &op) {
    const std::vector<VariantDomain> variants = variant_domains(family, op);
    return variants.size() > 1 || (variants.size() == 1 && !variants[0].knobs.empty());
}

Graph one_layer_graph(const Graph &fused, const Layer &layer) {
    Graph g;
    g.name = "tune";
    const Value &in = fused.values[layer.inputs[0]];
    g.inputs = {g.add_value(in.blob_name, in.shape)};
    Layer copy = layer;
    copy.inputs = g.inputs;
    copy.outputs.clear();
    for (int o : layer.outputs) copy.outputs.push_back(g.add_value(fused.values[o].blob_name, fused.values[o].shape));
    g.outputs = copy.outputs;
    g.layers = {copy};
    return g;
}

// Far more than the 11 timed runs of any layer that is worth running need.
constexpr unsigned kMeasureSeconds = 300;

// Stopped by the user (Ctrl-C, kill, a closed terminal), not by anything the candidate did.
bool interrupted_by_user(int status) {
    if (!WIFSIGNALED(status)) return false;
    for (int signal : kStopSignals)
        if (WTERMSIG(status) == signal) return true;
    return false;
}

bool killed_from_outside(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL; }

// A child takes the default action for the signals the tuner only notes.
void default_stop_signals() {
    for (int signal : kStopSignals) ::signal(signal, SIG_DFL);
}

}  // namespace

std::vector<TuneLayer> tune_layers(const Graph &fused, const NetworkPlan &plan, std::vector<std::string> *skipped) {
    std::vector<TuneLayer> layers;
    std::map<std::string, size_t> index;
    for (const PlannedStep &step : plan.steps) {
        if (step.kernel < 0) continue;
        const KernelInstance &k = plan.kernels[step.kernel];
        const std::string signature = k.op_signature_hash();
        if (index.count(signature)) {
            if (index[signature] != SIZE_MAX) layers[index[signature]].steps.push_back(step.layer);
            continue;
        }
        index[signature] = SIZE_MAX;
        if (!has_choices(plan.family, k.op)) continue;  // nothing to choose: not worth a note
        const std::string name = step.layer.substr(0, step.layer.find('+'));
        const auto layer =
            std::find_if(fused.layers.begin(), fused.layers.end(), [&](const Layer &l) { return l.name == name; });
        if (layer == fused.layers.end() || layer->inputs.size() != 1 || layer->outputs.size() != 1) {
            skipped->push_back(step.layer + " (" + k.op +
                               "): its layer does not run alone (several inputs or outputs)");
            continue;
        }
        index[signature] = layers.size();
        layers.push_back({signature, k, {step.layer}, one_layer_graph(fused, *layer)});
    }
    return layers;
}

LayerBench::LayerBench(const TuneLayer &layer, const TargetDescription &target, const std::string &scratch,
                       uint64_t seed, bool reference)
    : layer_(layer), target_(target), scratch_(scratch), seed_(seed) {
    const NetworkPlan plan = plan_network(layer.graph, "net", target.plan_target(), cli_plan_options());
    const bool same = std::any_of(plan.kernels.begin(), plan.kernels.end(),
                                  [&](const KernelInstance &k) { return k.op_signature_hash() == layer.signature; });
    if (!same)
        throw CompileError(layer.steps[0] + ": run alone, its layer plans to another op signature than in the network");
    if (!reference) return;
    input_.resize(size_t(element_count(layer.graph.values[layer.graph.inputs[0]].shape)));
    std::mt19937_64 random(seed + 0x5eed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &v : input_) v = uniform(random);
    const reference::Tensor in{layer.graph.values[layer.graph.inputs[0]].shape,
                               std::vector<double>(input_.begin(), input_.end())};
    try {
        expected_ = reference::run_graph(layer.graph, reference_weights(seeded_weights(plan, seed)),
                                         {in})[layer.graph.outputs[0]];
    } catch (const std::runtime_error &e) {
        throw CompileError(layer.steps[0] + ": the reference cannot run it: " + e.what());
    }
}

std::optional<KernelInstance> LayerBench::resolve(const ChoiceSettings &settings, std::string *why) const {
    ChoiceOverrides records;
    records[layer_.signature] = settings;
    records[layer_.signature].source = "candidate";
    try {
        const NetworkPlan plan = plan_network(layer_.graph, "net", target_.plan_target(), cli_plan_options(records));
        for (const KernelInstance &k : plan.kernels)
            if (k.op_signature_hash() == layer_.signature) return k;
        *why = "the plan has no kernel of the signature";
    } catch (const CompileError &e) {
        *why = e.what();
    }
    return std::nullopt;
}

std::vector<std::string> LayerBench::compile(const std::vector<ChoiceSettings> &candidates, int jobs,
                                             std::vector<std::string> *errors) {
    std::vector<std::string> libraries(candidates.size()), dirs(candidates.size());
    errors->assign(candidates.size(), "");
    // Each signature's candidates in a folder of their own: libraries are measured again later.
    for (std::string &dir : dirs) {
        dir = (fs::path(scratch_) / layer_.signature / ("candidate-" + std::to_string(compiled_++))).string();
        fs::create_directories(dir);
    }
    const auto compile_one = [&](size_t i) {
        default_stop_signals();  // the tuner's handler only sets a flag
        const std::string &kill = cli_environment().test_kill_compile;
        if (!kill.empty() && candidates[i].variant == kill) ::raise(SIGKILL);
        ChoiceOverrides records;
        records[layer_.signature] = candidates[i];
        records[layer_.signature].source = "candidate";
        link_shared_library(
            build_network(layer_.graph, "net", target_, dirs[i], BuildOptions(cli_plan_options(records))), dirs[i]);
    };
    run_in_child_processes(candidates.size(), jobs, compile_one, [&](size_t i, const ChildOutcome &outcome) {
        const fs::path so = fs::path(dirs[i]) / "libnet.so";
        if (outcome.succeeded() && fs::exists(so)) {
            libraries[i] = so.string();
        } else {
            (*errors)[i] = interrupted_by_user(outcome.status)   ? kStoppedByUser
                           : killed_from_outside(outcome.status) ? kKilledFromOutside
                           : outcome.error.empty() ? "the compiler " + describe_wait_status(outcome.status)
                                                   : outcome.error;
        }
        return true;
    });
    return libraries;
}

CandidateRun LayerBench::measure(const std::string &library, double tolerance, double best_ms) const {
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
        std::ostringstream result;
        result.precision(17);
        try {
            LoadedNetwork net(library, "net");
            net.create(nullptr, seed_);
            std::vector<float> output(expected_.data.size(), std::nanf(""));
            const auto start = std::chrono::steady_clock::now();
            net.forward(input_.data(), output.data());
            const double first_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            const double error = reference::relative_l2_error(output.data(), expected_);
            if (!(error <= tolerance)) {
                // A NaN or infinite error goes as -1: the parent reads a number there.
                result << "rejected " << (std::isfinite(error) ? error : -1.0) << " relative L2 error " << error
                       << " above the variant's tolerance " << tolerance;
            } else {
                // Tiny layers repeat within one timing, so that a timing is not mostly clock reads.
                const int inner = int(std::clamp(std::ceil(1.0 / std::max(first_ms, 1e-3)), 1.0, 100.0));
                std::vector<double> ms;
                const auto time_once = [&] {
                    const auto t0 = std::chrono::steady_clock::now();
                    for (int r = 0; r < inner; r++) net.forward(input_.data(), output.data());
                    ms.push_back(
                        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
                        inner);
                };
                time_once();  // warm-up: the first call after loading touches memory the rest reuse
                ms.clear();
                for (int r = 0; r < 3; r++) time_once();
                std::vector<double> sorted = ms;
                std::sort(sorted.begin(), sorted.end());
                if (best_ms < 0 || sorted[1] < 1.25 * best_ms)
                    for (int r = 0; r < 7; r++) time_once();
                std::sort(ms.begin(), ms.end());
                result << "measured " << error << " " << ms[ms.size() / 2] << " " << ms.front() << " " << ms.back()
                       << " " << ms.size();
            }
        } catch (const std::exception &e) {
            result << "rejected -1 " << e.what();
        }
        const std::string text = result.str();
        ssize_t ignored = ::write(pipe_fds[1], text.data(), text.size());
        (void)ignored;
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string text;
    char buffer[4096];
    // A signal to the tuner alone (kill, not a terminal's Ctrl-C) lets the candidate finish.
    for (;;) {
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n > 0) text.append(buffer, size_t(n));
        else if (n == 0 || errno != EINTR) break;
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    CandidateRun run;
    if (interrupted_by_user(status)) {
        run.outcome = CandidateRun::Outcome::Interrupted;
        return run;
    }
    if (killed_from_outside(status)) {
        run.outcome = CandidateRun::Outcome::KilledFromOutside;
        run.reason = kKilledFromOutside;
        return run;
    }
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

}  // namespace cortado
