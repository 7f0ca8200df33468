#include "compiler/tuner/bundles.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "compiler/json_text.h"
#include "compiler/schedule_version.h"
#include "compiler/tuning_db.h"
#include "frontend/compile_error.h"
#include "compiler/graph_json.h"
#include "compiler/tuner/local_runner.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

using Json = nlohmann::ordered_json;

// What one trip to the GPU machine may carry, with room for the runner and the results.
constexpr uintmax_t kBundleBytes = 40ull << 20;

Json shape_json(const Shape &shape) {
    Json dims = Json::array();
    for (int64_t d : shape) dims.push_back(d);
    return dims;
}

}  // namespace

// The bundles being filled: each a directory with a manifest.
class Bundles {
  public:
    Bundles(std::string dir, const TargetDescription &target, uint64_t seed)
        : dir_(std::move(dir)), target_(target), seed_(seed) {
        fs::create_directories(dir_);
        open_next();
    }

    // Copies `library` into the current bundle (a new one when it would pass the size), under the
    // signature's folder, and lists it.
    std::string add(const TuneLayer &layer, const KernelInstance &kernel, const std::string &library) {
        const uintmax_t size = fs::file_size(library);
        if (bytes_ > 0 && bytes_ + size > kBundleBytes) open_next();
        if (!folders_.count(layer.signature)) folders_[layer.signature] = "s" + std::to_string(folders_.size());
        const std::string folder = folders_[layer.signature];
        Json &signature = signature_entry(layer, folder);
        const std::string relative = folder + "/c" + std::to_string(signature["candidates"].size()) + "/libnet.so";
        fs::create_directories((current() / relative).parent_path());
        fs::copy_file(library, current() / relative, fs::copy_options::overwrite_existing);
        bytes_ += size;
        Json knobs = Json::object();
        for (const auto &[name, value] : kernel.choice.knobs.values) knobs[name] = value;
        signature["candidates"].push_back({{"library", relative},
                                           {"variant", kernel.choice.variant},
                                           {"knobs", knobs},
                                           {"tolerance", kernel.choice.tolerance},
                                           {"schedule_version", schedule_version(kernel.op, kernel.choice.variant)}});
        count_++;
        return (current() / relative).string();
    }

    // Writes every manifest; returns the bundle directories that hold candidates.
    std::vector<std::string> finish() {
        std::vector<std::string> written;
        for (size_t b = 0; b < manifests_.size(); b++) {
            if (manifests_[b]["signatures"].empty()) continue;
            const fs::path path = fs::path(dir_) / ("bundle-" + std::to_string(b)) / "tune.json";
            std::ofstream out(path);
            out << json_text(manifests_[b]) << "\n";
            if (!out.flush()) throw CompileError(path.string() + ": cannot write");
            written.push_back(path.parent_path().string());
        }
        return written;
    }
    int count() const { return count_; }

  private:
    fs::path current() const { return fs::path(dir_) / ("bundle-" + std::to_string(manifests_.size() - 1)); }

    void open_next() {
        manifests_.push_back(
            {{"target", target_.name}, {"halide_target", target_.halide_target}, {"seed", seed_},
             {"signatures", Json::array()}});
        fs::remove_all(current());
        fs::create_directories(current());
        bytes_ = 0;
    }

    Json &signature_entry(const TuneLayer &layer, const std::string &folder) {
        Json &signatures = manifests_.back()["signatures"];
        for (Json &s : signatures)
            if (s["signature"] == layer.signature) return s;
        fs::create_directories(current() / folder);
        std::ofstream(current() / folder / "graph.json") << graph_json_text(layer.graph);
        const KernelInstance &k = layer.default_kernel;
        signatures.push_back({{"signature", layer.signature},
                              {"op", k.op},
                              {"layer", layer.steps.front()},
                              {"shape", k.shape},
                              {"target", k.target},
                              {"family", k.family},
                              {"graph", folder + "/graph.json"},
                              {"input_shape", shape_json(layer.graph.values[layer.graph.inputs[0]].shape)},
                              {"output_shape", shape_json(layer.graph.values[layer.graph.outputs[0]].shape)},
                              {"candidates", Json::array()}});
        return signatures.back();
    }

    std::string dir_;
    const TargetDescription &target_;
    uint64_t seed_;
    std::map<std::string, std::string> folders_;  // signature -> its folder in every bundle
    std::vector<Json> manifests_;
    uintmax_t bytes_ = 0;
    int count_ = 0;
};

namespace {

class BundleSignatureRunner : public SignatureRunner {
  public:
    BundleSignatureRunner(const TuneLayer &layer, BundleRunner::Shared &shared) : layer_(layer), shared_(shared) {
        check_runs_alone(layer, plan_network(layer.graph, "net", shared.target.plan_target(), shared.options));
        folder_ = (fs::path(shared.scratch.path()) / layer.signature).string();
    }

    std::vector<std::string> compile(const std::vector<ChoiceSettings> &candidates, int jobs,
                                     std::vector<std::string> *errors) override {
        std::vector<std::string> built = compile_candidates(layer_, shared_.target, shared_.options, candidates, jobs,
                                                            folder_, &compiled_, shared_.stop, errors);
        for (size_t i = 0; i < built.size(); i++) {
            if (built[i].empty()) continue;
            std::string why;
            const std::optional<KernelInstance> k =
                resolve_candidate(layer_, shared_.target.plan_target(), shared_.options, candidates[i], &why);
            if (!k) throw CompileError(layer_.steps.front() + ": a built candidate no longer plans: " + why);
            const std::string library = built[i];
            built[i] = shared_.bundles->add(layer_, *k, library);
            fs::remove_all(fs::path(library).parent_path());
        }
        return built;
    }

    CandidateRun measure(const std::string &, double, double) override {
        throw CompileError("a bundle's candidates are measured on the machine it travels to (tools/tune_bundle_runner)");
    }

  private:
    const TuneLayer &layer_;
    BundleRunner::Shared &shared_;
    std::string folder_;
    int compiled_ = 0;
};

}  // namespace

BundleRunner::BundleRunner(TargetDescription target, PlanOptions options, uint64_t seed, const std::string &dir,
                           std::function<bool()> stop)
    : shared_{std::move(target), std::move(options), std::move(stop), TemporaryDirectory("cortado-tune-prepare"),
              nullptr} {
    shared_.bundles = std::make_unique<Bundles>(dir, shared_.target, seed);
}

BundleRunner::~BundleRunner() = default;

std::unique_ptr<SignatureRunner> BundleRunner::open(const TuneLayer &layer) {
    return std::make_unique<BundleSignatureRunner>(layer, shared_);
}

std::vector<std::string> BundleRunner::finish() { return shared_.bundles->finish(); }

int BundleRunner::candidates() const { return shared_.bundles->count(); }

int import_tuning_records(const std::string &file, const std::string &db) {
    const TuningDbFile records = read_tuning_records(file, true);
    for (const std::string &w : records.warnings) std::cerr << "cortado: warning: " << w << "\n";
    std::ofstream out(db, std::ios::app);
    if (!out) throw CompileError(db + ": cannot write the tuning database");
    int appended = 0, rejected = 0, stale = 0;
    std::map<std::string, std::pair<double, std::string>> fastest;  // signature -> median, choice
    for (TuningRecord r : records.records) {
        if (r.hand_written() || r.schedule_version.empty() || r.target.empty()) {
            std::cerr << "cortado: warning: " << r.where
                      << ": skipped: not a measured record (no median, schedule version or target)\n";
            continue;
        }
        std::string current;
        try {
            current = schedule_version(r.op, r.variant);
        } catch (const CompileError &) {}
        if (current != r.schedule_version) {
            std::cerr << "cortado: note: " << r.where << ": measured at schedule version " << r.schedule_version
                      << " of " << r.variant << ", which this build does not have: kept, but it will not be chosen\n";
            stale++;
        }
        const std::string where = r.where;
        r.where.clear();
        out << tuning_record_json(r) << "\n";
        appended++;
        if (r.rejected) {
            rejected++;
            continue;
        }
        std::string choice = r.variant;
        for (const auto &[name, value] : r.knobs) choice += " " + name + "=" + std::to_string(value);
        auto &best = fastest[r.op_signature];
        if (best.second.empty() || r.median_ms < best.first) best = {r.median_ms, r.layer + ": " + choice};
    }
    if (!out.flush()) throw CompileError(db + ": cannot write the tuning database");
    std::cout << "cortado tune: imported " << appended << " records (" << rejected << " rejected, " << stale
              << " stale) for " << fastest.size() << " op signatures into " << db << "\n";
    for (const auto &[signature, best] : fastest)
        std::printf("  %s  %.4f ms  %s\n", signature.c_str(), best.first, best.second.c_str());
    return appended;
}

}  // namespace cortado
