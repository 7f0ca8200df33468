// The other machine's half of `cortado tune --prepare` (compiler/tuner/bundles.h): measures the
// candidates of one bundle and writes a tuning record for each. Needs no libHalide, so it
// travels to the lent GPU machine with the bundles (tools/bench/gpu-tune.sh).
//
//   tune_bundle_runner BUNDLE OUT.jsonl [--devices N]
//
// For each op signature in BUNDLE/tune.json, the layer (its graph JSON) gets the
// double-precision reference, computed here for the weights its libraries make from the
// bundle's seed; each candidate library is then checked against it within its variant's
// tolerance and timed with its per-layer profile, in a child process of its own
// (compiler/tuner/candidate_check.h). Records are appended to OUT.jsonl as they come, in the
// tuning database format; `cortado tune --import OUT.jsonl` merges them. A rerun skips the
// choices OUT.jsonl already holds (the same signature, variant, knobs and schedule version),
// so a stopped run resumes. --devices N measures on N GPUs at once (CUDA_VISIBLE_DEVICES of one
// worker process each, taking every Nth op signature). Ctrl-C or SIGTERM ends every child; what was
// measured stays. Exits 0 when every candidate has a record, 130 when a rerun has more to do, 1
// on an error.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/graph_json.h"
#include "compiler/json_text.h"
#include "compiler/kernel_plan.h"
#include "compiler/tuner/candidate_check.h"
#include "compiler/tuner/stop_signals.h"
#include "frontend/compile_error.h"

using namespace cortado;
using Json = nlohmann::ordered_json;

namespace {

// What a record measures: the same in every round and bundle for the same choice.
std::string measurement_id(const std::string &signature, const std::string &variant, const nlohmann::json &knobs,
                           const std::string &version) {
    std::map<std::string, int> sorted;
    for (const auto &[name, value] : knobs.items()) sorted[name] = value.get<int>();
    std::string id = signature + "|" + variant + "|";
    for (const auto &[name, value] : sorted) id += name + "=" + std::to_string(value) + " ";
    return id + "|" + version;
}

std::set<std::string> already_measured(const std::string &path) {
    std::set<std::string> done;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        try {  // a line cut short by a kill is measured again
            const nlohmann::json r = nlohmann::json::parse(line);
            done.insert(measurement_id(r.at("op_signature").get<std::string>(), r.at("variant").get<std::string>(),
                                       r.at("knobs"), r.at("schedule_version").get<std::string>()));
        } catch (const nlohmann::json::exception &) {
        }
    }
    return done;
}

std::string today() {
    char text[16];
    const std::time_t now = std::time(nullptr);
    std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
    return text;
}

Json record(const nlohmann::json &signature, const nlohmann::json &candidate, const CandidateRun &run) {
    Json r{{"op_signature", signature["signature"]}, {"op", signature["op"]}, {"layer", signature["layer"]},
           {"variant", candidate["variant"]},        {"knobs", candidate["knobs"]}};
    if (run.outcome == CandidateRun::Outcome::Measured) {
        r["median_ms"] = run.median_ms;
        r["min_ms"] = run.min_ms;
        r["max_ms"] = run.max_ms;
        r["repetitions"] = run.repetitions;
    } else {
        r["rejected"] = true;
        r["reason"] = run.reason;
    }
    r["error"] = std::isfinite(run.error) ? run.error : -1.0;
    r["tolerance"] = candidate["tolerance"];
    r["shape"] = signature["shape"];
    r["target"] = signature["target"];
    r["family"] = signature["family"];
    r["schedule_version"] = candidate["schedule_version"];
    r["date"] = today();
    return r;
}

// One line, in one write: workers append to the same file.
void append(int fd, const Json &r) {
    const std::string line = json_text(r, -1) + "\n";
    if (::write(fd, line.data(), line.size()) != ssize_t(line.size()))
        throw CompileError("cannot write a record: " + std::string(std::strerror(errno)));
}

struct Counts {
    int measured = 0, rejected = 0;
    bool interrupted = false;  // stopped, or a candidate killed from outside: a rerun finishes
};

// Measures this worker's share of the bundle: the op signatures whose number is `worker` modulo
// `workers`, so that each layer's reference (seconds of double-precision arithmetic for a large
// layer) is computed by one worker only.
Counts measure_share(const std::string &bundle, const nlohmann::json &manifest, const std::set<std::string> &done,
                     int out, int worker, int workers) {
    Counts counts;
    const uint64_t seed = manifest.at("seed").get<uint64_t>();
    size_t number = 0;
    for (const nlohmann::json &signature : manifest.at("signatures")) {
        if (int(number++ % size_t(workers)) != worker) continue;
        std::vector<const nlohmann::json *> mine;
        for (const nlohmann::json &c : signature.at("candidates"))
            if (!done.count(measurement_id(signature["signature"], c["variant"], c["knobs"], c["schedule_version"])))
                mine.push_back(&c);
        if (mine.empty()) continue;
        const std::string layer = signature.at("layer").get<std::string>();
        std::ifstream graph_file(bundle + "/" + signature.at("graph").get<std::string>());
        const Graph graph = graph_from_json(nlohmann::json::parse(graph_file));
        PlanTarget target(manifest.at("halide_target").get<std::string>());
        target.family = signature.at("family").get<std::string>();
        const LayerReference reference = layer_reference(graph, plan_network(graph, "net", target), seed, layer);
        for (const nlohmann::json *c : mine) {
            if (StopSignals::requested()) {
                counts.interrupted = true;
                return counts;
            }
            CandidateMeasure how;
            how.seed = seed;
            how.tolerance = (*c)["tolerance"].get<double>();
            how.timing = CandidateTiming::LayerProfile;
            const CandidateRun run = measure_candidate(bundle + "/" + (*c)["library"].get<std::string>(), reference,
                                                       how, &StopSignals::requested);
            if (run.outcome == CandidateRun::Outcome::Interrupted ||
                run.outcome == CandidateRun::Outcome::KilledFromOutside) {
                counts.interrupted = true;  // not recorded: a rerun measures it
                continue;
            }
            append(out, record(signature, *c, run));
            (run.outcome == CandidateRun::Outcome::Measured ? counts.measured : counts.rejected)++;
        }
        std::printf("%s: %zu candidates\n", layer.c_str(), mine.size());
        std::fflush(stdout);
    }
    return counts;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--devices")) {
        std::fprintf(stderr, "usage: %s BUNDLE OUT.jsonl [--devices N]\n", argv[0]);
        return 2;
    }
    const std::string bundle = argv[1], out_path = argv[2];
    int workers = 1;
    if (argc == 5) {
        char *end = nullptr;
        const long n = std::strtol(argv[4], &end, 10);
        if (*end != '\0' || n < 1 || n > 64) {
            std::fprintf(stderr, "error: --devices takes a whole number from 1 to 64, not '%s'\n", argv[4]);
            return 2;
        }
        workers = int(n);
    }
    try {
        std::ifstream manifest_file(bundle + "/tune.json");
        if (!manifest_file) throw CompileError(bundle + "/tune.json: cannot read the bundle's manifest");
        nlohmann::json manifest;
        try {
            manifest = nlohmann::json::parse(manifest_file);
        } catch (const nlohmann::json::exception &e) {
            throw CompileError(bundle + "/tune.json: " + e.what());
        }
        const std::set<std::string> done = already_measured(out_path);
        const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (out < 0) throw CompileError(out_path + ": cannot write: " + std::strerror(errno));
        const StopSignals stop_signals;
        // Each worker (one per GPU, seeing only its own) measures its share and says how it went.
        const auto run_worker = [&](int w) {
            const Counts c = measure_share(bundle, manifest, done, out, w, workers);
            std::printf("%s%s: %d measured, %d rejected%s, records in %s\n", bundle.c_str(),
                        workers > 1 ? (" on GPU " + std::to_string(w)).c_str() : "", c.measured, c.rejected,
                        c.interrupted ? " (stopped: run it again to finish)" : "", out_path.c_str());
            std::fflush(stdout);
            return c.interrupted ? 130 : 0;
        };
        if (workers == 1) return run_worker(0);
        std::vector<pid_t> pids;
        for (int w = 0; w < workers; w++) {
            std::fflush(stdout);
            const pid_t pid = ::fork();
            if (pid < 0) throw CompileError("cannot start a worker: " + std::string(std::strerror(errno)));
            if (pid == 0) {
                ::setenv("CUDA_VISIBLE_DEVICES", std::to_string(w).c_str(), 1);
                int code = 1;
                try {
                    code = run_worker(w);
                } catch (const std::exception &e) {
                    std::fprintf(stderr, "error: GPU %d: %s\n", w, e.what());
                }
                std::fflush(stdout);
                ::_exit(code);
            }
            pids.push_back(pid);
        }
        int worst = 0;
        for (pid_t pid : pids) {
            int status = 0;
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
            if (code == 1 || (code == 130 && worst == 0)) worst = code;
        }
        return worst;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
