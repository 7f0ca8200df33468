#include "tools/tune_prepare.h"

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
#include "tools/temporary_directory.h"
#include "tools/tune_candidates.h"

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

// The bundles being filled: each a directory with a manifest.
class Bundles {
  public:
    Bundles(std::string dir, const TargetDescription &target) : dir_(std::move(dir)), target_(target) { open_next(); }

    // Moves `library` into the current bundle (a new one when it would pass the size), under the
    // signature's folder, and lists it; returns nothing.
    void add(const TuneLayer &layer, size_t signature_index, const KernelInstance &kernel, const std::string &library) {
        const uintmax_t size = fs::file_size(library);
        if (bytes_ > 0 && bytes_ + size > kBundleBytes) open_next();
        const std::string folder = "s" + std::to_string(signature_index);
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
            {{"target", target_.name}, {"halide_target", target_.halide_target}, {"signatures", Json::array()}});
        fs::remove_all(current());
        fs::create_directories(current());
        bytes_ = 0;
    }

    Json &signature_entry(const TuneLayer &layer, const std::string &folder) {
        Json &signatures = manifests_.back()["signatures"];
        for (Json &s : signatures)
            if (s["signature"] == layer.signature) return s;
        fs::create_directories(current() / folder);
        std::ofstream(current() / folder / "graph.json") << graph_json(layer.graph);
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
    std::vector<Json> manifests_;
    uintmax_t bytes_ = 0;
    int count_ = 0;
};

}  // namespace

void prepare_tuning_bundles(const std::vector<TuneLayer> &layers, const TargetDescription &target,
                            const PrepareOptions &options) {
    const TuningDbFile existing = read_tuning_records(options.db, false);
    for (const std::string &w : existing.warnings) std::cerr << "cortado: warning: " << w << "\n";
    std::map<std::string, std::vector<TuningRecord>> earlier;
    for (const TuningRecord &r : existing.records) earlier[r.op_signature].push_back(r);
    std::ofstream db(options.db, std::ios::app);
    if (!db) throw CompileError(options.db + ": cannot write the tuning database");

    fs::create_directories(options.dir);
    Bundles bundles(options.dir, target);
    TemporaryDirectory scratch("cortado-tune-prepare");
    int measured_before = 0, rejected_here = 0;
    for (size_t i = 0; i < layers.size(); i++) {
        const TuneLayer &layer = layers[i];
        std::unique_ptr<LayerBench> bench_holder;
        try {
            bench_holder = std::make_unique<LayerBench>(layer, target, scratch.path(), options.seed, false);
        } catch (const CompileError &e) {
            std::cerr << "cortado: note: not tuned: " << e.what() << "\n";
            continue;
        }
        LayerBench &bench = *bench_holder;
        CandidateSearch search = search_for(layer.default_kernel.family, layer.default_kernel.op, layer.signature,
                                            options.seed, options.max_tolerance);
        std::map<std::string, double> latest;
        measured_before += resume_from_records(earlier[layer.signature], search, &latest);

        std::vector<ChoiceSettings> proposals;
        std::vector<KernelInstance> kernels;
        for (int attempts = 0; int(proposals.size()) < options.candidates && attempts < 400; attempts++) {
            const std::optional<ChoiceSettings> proposal = search.next();
            if (!proposal) break;
            std::string why;
            const std::optional<KernelInstance> k = bench.resolve(*proposal, &why);
            if (!k) continue;
            const Candidate c{k->choice.variant, k->choice.knobs.values};
            if (search.tried(c)) {
                if (search.measured(c)) search.report(*proposal, c, search.result(c));
                continue;
            }
            search.report_unmeasured(*proposal, c);
            proposals.push_back(*proposal);
            kernels.push_back(*k);
        }
        std::vector<std::string> errors;
        const std::vector<std::string> libraries = bench.compile(proposals, options.jobs, &errors);
        for (size_t j = 0; j < proposals.size(); j++) {
            if (!libraries[j].empty()) {
                bundles.add(layer, i, kernels[j], libraries[j]);
                fs::remove_all(fs::path(libraries[j]).parent_path());
                continue;
            }
            TuningRecord r = tuning_record_for(kernels[j], layer.steps.front());
            r.rejected = true;
            r.reason = "does not compile: " + errors[j].substr(0, 400);
            db << tuning_record_json(r) << "\n" << std::flush;
            rejected_here++;
        }
        if (::isatty(2))
            std::cerr << "\rcortado: prepared " << i + 1 << "/" << layers.size() << " op signatures, "
                      << bundles.count() << " candidates          " << std::flush;
    }
    if (::isatty(2)) std::cerr << "\n";
    const std::vector<std::string> written = bundles.finish();
    std::cout << "cortado tune: " << bundles.count() << " candidates for " << layers.size() << " op signatures on "
              << target.halide_target << " in " << written.size() << " bundles under " << options.dir << " ("
              << measured_before << " choices already measured in " << options.db << ", " << rejected_here
              << " rejected here: they do not compile)\n"
              << "on the GPU machine, for each bundle: python3 tools/bench/tune_runner.py BUNDLE OUT.jsonl\n"
              << "then here: cortado tune --import OUT.jsonl --db " << options.db << "\n";
}

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
