// `cortado tune`: a measured search over the variants and knobs of every op signature of a
// network (or a benchmark suite) on this machine, writing one record per candidate to a tuning
// database that compile, run and bench then use (compiler/tuning_db.h).
//
// The budget is spent in two passes. First each signature's default choice is checked and
// timed, which gives every signature a share of the time: its default time times the number of
// steps that run it. Then the signatures are searched, the largest share first, each for its
// share of the time left (tools/tune_candidates.h: the other variants' defaults, then local
// moves around the best and random samples). Candidates compile in parallel, one per core, and
// are measured one at a time. The last tenth of the budget measures each signature's default and
// two fastest choices once more, one after the other. Every measured or rejected candidate is
// appended to the database at once, so Ctrl-C loses nothing, and a rerun skips what is already
// recorded. `--prepare` and `--import` tune a GPU this machine lacks (tools/tune_prepare.h).
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "compiler/install_layout.h"
#include "compiler/toolchain.h"
#include "compiler/tuning_db.h"
#include "frontend/compile_error.h"
#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/load_network.h"
#include "frontend/shape_inference.h"
#include "frontend/untrained_fillers.h"
#include "tools/bench/bench_cases.h"
#include "tools/bench/bench_networks.h"
#include "tools/cli_args.h"
#include "tools/cli_environment.h"
#include "tools/commands.h"
#include "tools/temporary_directory.h"
#include "tools/tune_candidates.h"
#include "tools/tune_measure.h"
#include "tools/tune_prepare.h"
#include "tools/tune_report.h"
#include "tools/tune_restamp.h"

namespace cortado {

namespace {

volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

using Clock = std::chrono::steady_clock;

struct NamedGraph {
    std::string name;  // prefixes step names when several networks are tuned together
    Graph fused;
};

std::vector<int64_t> batch_list(const CliArgs &cli) {
    std::vector<int64_t> batches;
    if (!cli.has("batch")) return {0};
    std::stringstream list(cli.get("batch"));
    const std::string wrong = "--batch takes whole numbers above 0 separated by commas, not '" + cli.get("batch") + "'";
    for (std::string item; std::getline(list, item, ',');) {
        try {
            const Shape one = parse_shape(item);
            if (one.size() != 1) throw CompileError(wrong);
            batches.push_back(one[0]);
        } catch (const CompileError &) {
            throw CompileError(wrong);
        }
    }
    if (batches.empty()) throw CompileError(wrong);
    return batches;
}

std::vector<NamedGraph> graphs_to_tune(const CliArgs &cli) {
    std::vector<NamedGraph> graphs;
    const std::vector<int64_t> batches = batch_list(cli);
    if (!cli.has("suite")) {
        for (int64_t batch : batches) {
            ImportOptions options;
            options.batch = batch;
            if (cli.has("input-shape")) options.input_shape = parse_shape(cli.get("input-shape"));
            Graph graph = load_network(cli.positional, options, true);
            if (const std::string note = stand_in_weights_note(fill_untrained_weights(graph)); !note.empty())
                std::cerr << "cortado: note: " << note << "\n";
            const std::string name =
                batches.size() > 1 ? "b" + std::to_string(graph.values[graph.inputs[0]].shape[0]) + " " : "";
            graphs.push_back({name, std::move(graph)});
        }
        return graphs;
    }
    if (!cli.positional.empty()) throw CompileError("give a network or --suite, not both");
    const std::string suite = cli.get("suite");
    const bool quick = cli.flags.count("quick");
    if (suite == "conv") {
        const std::string csv = cli.has("set") ? cli.get("set") : shared_file("bench/boda-convs.csv", "--set CSV");
        for (int64_t batch : batches)
            for (const ConvShape &s : conv_set(csv, batch, quick, !cli.has("set"))) {
                Graph graph = import_caffe_prototxt_text(conv_prototxt(s), conv_name(s), ImportOptions{});
                infer_shapes(graph);
                graphs.push_back({conv_name(s) + " ", std::move(graph)});
            }
    } else if (suite == "sgemm") {
        if (cli.has("batch")) throw CompileError("--batch does not apply to the sgemm suite (its cases are n x n x n)");
        for (int n : sgemm_sizes(quick)) {
            Graph graph = import_caffe_prototxt_text(sgemm_prototxt(n), "sgemm " + std::to_string(n), ImportOptions{});
            infer_shapes(graph);
            graphs.push_back({"sgemm " + std::to_string(n) + " ", std::move(graph)});
        }
    } else if (suite == "nets") {
        const std::string models = cli.has("models") ? cli.get("models") : shared_file("models", "--models DIR");
        for (const NetworkBenchCase &c : shipped_network_cases(models, quick)) {
            if (cli.has("batch") && std::find(batches.begin(), batches.end(), c.batch) == batches.end()) continue;
            Graph graph = load_bench_network(c);
            fuse_activations(graph);
            graphs.push_back({bench_network_name(c) + " ", std::move(graph)});
        }
    } else {
        throw CompileError("unknown tuning suite '" + suite + "': give conv, sgemm or nets");
    }
    return graphs;
}

double parse_minutes(const std::string &text) {
    try {
        size_t used = 0;
        const double minutes = std::stod(text, &used);
        if (used == text.size() && minutes > 0 && minutes <= 7 * 24 * 60) return minutes;  // at most a week
    } catch (const std::exception &) {}
    throw CompileError("--budget takes a number of minutes above 0 (at most a week), not '" + text + "'");
}

// One op signature being tuned.
struct Tuning {
    TuneLayer layer;
    std::unique_ptr<LayerBench> bench;
    std::unique_ptr<CandidateSearch> search;
    double default_ms = -1;
    std::string default_key;
    int candidates = 0, rejected = 0, resumed = 0;
    bool exhausted = false;
    std::map<std::string, double> latest;          // choice -> its latest median (< 0: rejected)
    std::map<std::string, std::string> libraries;  // choice -> its library, where built by this run
    std::string default_failure;                   // why the default choice was rejected
};

class Tuner {
  public:
    Tuner(const TargetDescription &target, const std::string &db, int jobs, int max_candidates, double max_tolerance,
          uint64_t seed, Clock::time_point deadline)
        : target_(target),
          db_path_(db),
          jobs_(jobs),
          max_candidates_(max_candidates),
          max_tolerance_(max_tolerance),
          seed_(seed),
          deadline_(deadline),
          phase_end_(deadline),
          budget_(deadline - Clock::now()),
          scratch_("cortado-tune") {
        const TuningDbFile existing = read_tuning_records(db, false);
        for (const std::string &w : existing.warnings) std::cerr << "cortado: warning: " << w << "\n";
        for (const TuningRecord &r : existing.records) earlier_[r.op_signature].push_back(r);
        db_.open(db, std::ios::app);
        if (!db_) throw CompileError(db + ": cannot write the tuning database");
    }

    void add(TuneLayer layer) {  // one per signature
        Tuning t;
        t.layer = std::move(layer);
        tunings_.push_back(std::move(t));
    }
    size_t size() const { return tunings_.size(); }
    int resumed() const {
        int n = 0;
        for (const Tuning &t : tunings_) n += t.resumed;
        return n;
    }

    void run() {
        // First pass: every default, which also sizes each signature's share of the time.
        for (size_t i = 0; i < tunings_.size() && !stopped(); i++) {
            Tuning &t = tunings_[i];
            current_ = int(i) + 1;
            try {
                start(t);
            } catch (const CompileError &e) {  // this layer cannot be tuned alone; the others can
                std::cerr << "cortado: note: not tuned: " << e.what() << "\n";
                continue;
            }
            step(t, 1);
            print_progress(progress(t), true);
            if (!t.default_failure.empty())
                std::cerr << "cortado: note: " << t.layer.steps.front()
                          << ": the default choice failed its check, so it is not tuned: " << t.default_failure << "\n";
        }
        std::vector<Tuning *> order;
        for (Tuning &t : tunings_)
            if (t.default_ms > 0) order.push_back(&t);
        if (order.empty() && !tunings_.empty() && !stopped())
            throw CompileError("the default choice of every op signature failed here (" +
                               tunings_.front().default_failure +
                               "): is the device there? For another machine: --prepare DIR");
        std::stable_sort(order.begin(), order.end(),
                         [](const Tuning *a, const Tuning *b) { return weight(*a) > weight(*b); });
        double weight_left = 0;
        for (const Tuning *t : order) weight_left += weight(*t);
        // The last tenth of the budget measures each signature's finalists once more, side by side.
        phase_end_ = deadline_ - std::chrono::duration_cast<Clock::duration>(budget_ * 0.1);
        for (Tuning *t : order) {
            if (stopped()) break;
            current_ = int(t - tunings_.data()) + 1;
            const double share = seconds_left() * weight(*t) / weight_left;
            weight_left -= weight(*t);
            const auto until =
                Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(share));
            while (!stopped() && !t->exhausted && Clock::now() < until && t->candidates + t->resumed < max_candidates_)
                step(*t, std::min(jobs_, max_candidates_ - t->candidates - t->resumed));
            print_progress(progress(*t), true);
        }
        phase_end_ = deadline_;
        for (Tuning *t : order)
            if (!stopped()) confirm(*t);
    }

    bool was_interrupted() const { return interrupted != 0; }

    std::vector<TuneSummaryRow> summary() const {
        std::vector<TuneSummaryRow> rows;
        for (const Tuning &t : tunings_) {
            TuneSummaryRow row;
            for (const std::string &s : t.layer.steps) row.steps += (row.steps.empty() ? "" : ", ") + s;
            row.step_count = int(t.layer.steps.size());
            row.default_ms = t.default_ms;
            const std::string best = fastest(t);
            if (!best.empty()) {
                row.tuned_ms = t.latest.at(best);
                row.choice = best == t.default_key ? "default (" + best + ")" : best;
            }
            // The database offers a hand-written record before any measured one (compiler/tuning_db.h).
            if (const TuningRecord *hand = last_hand_written(t.layer.signature))
                row.choice = "the hand-written record at " + hand->where + " (" + hand->variant +
                             "), not the measured " + (best.empty() ? "choices" : best);
            row.candidates = t.candidates + t.resumed;
            row.rejected = t.rejected;
            rows.push_back(row);
        }
        return rows;
    }

  private:
    const TuningRecord *last_hand_written(const std::string &signature) const {
        const auto records = earlier_.find(signature);
        if (records == earlier_.end()) return nullptr;
        for (auto r = records->second.rbegin(); r != records->second.rend(); ++r)
            if (r->hand_written()) return &*r;
        return nullptr;
    }

    static double weight(const Tuning &t) { return t.default_ms * double(t.layer.steps.size()); }
    double seconds_left() const {
        return std::max(0.0, std::chrono::duration<double>(phase_end_ - Clock::now()).count());
    }
    bool stopped() const { return interrupted || Clock::now() >= phase_end_; }

    // The choice the database will offer: the least latest median (ties by key, as it does).
    static std::string fastest(const Tuning &t) {
        std::string best;
        for (const auto &[key, ms] : t.latest)
            if (ms >= 0 && (best.empty() || ms < t.latest.at(best))) best = key;
        return best;
    }

    // The default (when it passed) and the two fastest other choices so far.
    static std::vector<std::string> finalists_of(const Tuning &t) {
        std::vector<std::pair<double, std::string>> ranked;
        for (const auto &[key, ms] : t.latest)
            if (ms >= 0 && key != t.default_key) ranked.emplace_back(ms, key);
        std::sort(ranked.begin(), ranked.end());
        std::vector<std::string> finalists;
        if (t.latest.count(t.default_key) && t.latest.at(t.default_key) >= 0) finalists.push_back(t.default_key);
        for (size_t i = 0; i < ranked.size() && i < 2; i++) finalists.push_back(ranked[i].second);
        return finalists;
    }

    // Only the finalists' libraries are measured again (confirm() builds any it lacks), so the
    // others' build folders (about 1 MB each) go as soon as they drop out: a long tune keeps a
    // few per signature in its scratch folder, not every candidate.
    static void drop_non_finalists(Tuning &t) {
        const std::vector<std::string> keep = finalists_of(t);
        for (auto it = t.libraries.begin(); it != t.libraries.end();) {
            if (std::find(keep.begin(), keep.end(), it->first) != keep.end()) {
                ++it;
                continue;
            }
            std::error_code ignored;  // a folder left behind goes with the scratch folder at exit
            std::filesystem::remove_all(std::filesystem::path(it->second).parent_path(), ignored);
            it = t.libraries.erase(it);
        }
    }

    // Measures the default and the two fastest other choices once more, one after another, so
    // that the summary compares times taken together and a lucky first timing does not decide.
    void confirm(Tuning &t) {
        const std::vector<std::string> finalists = finalists_of(t);
        if (finalists.size() < 2) return;
        std::vector<ChoiceSettings> missing;
        std::vector<std::string> missing_keys;
        for (const std::string &key : finalists)
            if (!t.libraries.count(key)) {
                missing.push_back(settings_of_key(t, key));
                missing_keys.push_back(key);
            }
        if (!missing.empty()) {
            std::vector<std::string> errors;
            const std::vector<std::string> built = t.bench->compile(missing, jobs_, &errors);
            for (size_t i = 0; i < built.size(); i++)
                if (!built[i].empty()) t.libraries[missing_keys[i]] = built[i];
        }
        for (const std::string &key : finalists) {
            if (stopped() || !t.libraries.count(key)) continue;
            std::string why;
            const std::optional<KernelInstance> k = t.bench->resolve(settings_of_key(t, key), &why);
            if (!k) continue;
            const CandidateRun run = t.bench->measure(t.libraries.at(key), k->choice.tolerance, -1);
            if (run.outcome == CandidateRun::Outcome::Interrupted) return;
            if (run.outcome == CandidateRun::Outcome::KilledFromOutside) {
                warn_not_recorded(t, key, run.reason);
                continue;
            }
            write(t, *k, run);
            const bool measured = run.outcome == CandidateRun::Outcome::Measured;
            t.latest[key] = measured ? run.median_ms : -1;
            if (key == t.default_key) t.default_ms = t.latest[key];
        }
        print_progress(progress(t), true);
    }

    // A choice written out in full, from its key ("variant knob=value ...").
    static ChoiceSettings settings_of_key(const Tuning &, const std::string &key) {
        ChoiceSettings s;
        s.exact = true;
        std::istringstream words(key);
        words >> s.variant;
        for (std::string item; words >> item;) {
            const size_t eq = item.find('=');
            s.knobs.emplace_back(item.substr(0, eq), std::stoi(item.substr(eq + 1)));
        }
        return s;
    }

    TuneProgress progress(const Tuning &t) const {
        TuneProgress p;
        p.index = current_;
        p.count = int(tunings_.size());
        for (const std::string &s : t.layer.steps) p.steps += (p.steps.empty() ? "" : ", ") + s;
        p.candidates = t.candidates + t.resumed;
        p.rejected = t.rejected;
        p.default_ms = t.default_ms;
        const std::string best = fastest(t);
        p.best_ms = best.empty() ? -1 : t.latest.at(best);
        p.seconds_left = seconds_left();
        return p;
    }

    void start(Tuning &t) {
        t.search = std::make_unique<CandidateSearch>(search_for(
            t.layer.default_kernel.family, t.layer.default_kernel.op, t.layer.signature, seed_, max_tolerance_));
        t.bench = std::make_unique<LayerBench>(t.layer, target_, scratch_.path(), seed_, true);
        // Records of earlier runs count as tried; only current schedule versions do.
        t.resumed = resume_from_records(earlier_[t.layer.signature], *t.search, &t.latest);
    }

    void write(const Tuning &t, const KernelInstance &k, const CandidateRun &run) {
        TuningRecord r = tuning_record_for(k, t.layer.steps.front());
        r.rejected = run.outcome != CandidateRun::Outcome::Measured;
        r.reason = run.reason;
        if (!r.rejected) {
            r.median_ms = run.median_ms;
            r.min_ms = run.min_ms;
            r.max_ms = run.max_ms;
            r.repetitions = run.repetitions;
        }
        r.error = run.error;
        db_ << tuning_record_json(r) << "\n" << std::flush;
    }

    // Proposes up to `count` new candidates, compiles them together and measures each.
    void step(Tuning &t, int count) {
        std::vector<ChoiceSettings> proposals;
        std::vector<KernelInstance> kernels;
        std::vector<Candidate> candidates;
        for (int attempts = 0; int(proposals.size()) < count;) {
            const std::optional<ChoiceSettings> proposal = t.search->next();
            if (!proposal || ++attempts > 200) {
                t.exhausted = proposals.empty();
                break;
            }
            std::string why;
            const std::optional<KernelInstance> k = t.bench->resolve(*proposal, &why);
            if (!k) {
                t.search->refused(*proposal);
                continue;
            }
            const Candidate c{k->choice.variant, k->choice.knobs.values};
            if (proposal->variant.empty() && proposal->knobs.empty()) t.default_key = c.key();
            const bool in_batch = std::any_of(candidates.begin(), candidates.end(),
                                              [&](const Candidate &o) { return o.key() == c.key(); });
            if (in_batch) continue;
            if (t.search->tried(c)) {
                if (t.search->measured(c)) t.search->report(*proposal, c, t.search->result(c));
                if (c.key() == t.default_key)
                    t.default_ms = t.latest.count(c.key()) ? t.latest.at(c.key()) : t.search->result(c);
                continue;
            }
            proposals.push_back(*proposal);
            kernels.push_back(*k);
            candidates.push_back(c);
        }
        if (proposals.empty() || stopped()) return;
        print_progress(progress(t), false);
        std::vector<std::string> errors;
        const std::vector<std::string> libraries = t.bench->compile(proposals, jobs_, &errors);
        for (size_t i = 0; i < proposals.size(); i++) {
            if (stopped()) return;  // compiled but not measured: a rerun finds it in the cache
            CandidateRun run;
            if (libraries[i].empty()) {
                if (errors[i] == kStoppedByUser) return;
                if (errors[i] == kKilledFromOutside) {
                    run.outcome = CandidateRun::Outcome::KilledFromOutside;
                    run.reason = "its compile was " + errors[i];
                } else {
                    run.reason = "does not compile: " + errors[i].substr(0, 400);
                }
            } else {
                t.libraries[candidates[i].key()] = libraries[i];
                run = t.bench->measure(libraries[i], kernels[i].choice.tolerance, t.search->best_ms());
                if (run.outcome == CandidateRun::Outcome::Interrupted) return;
            }
            if (run.outcome == CandidateRun::Outcome::KilledFromOutside) {
                warn_not_recorded(t, candidates[i].key(), run.reason);
                t.search->report(proposals[i], candidates[i], -1);  // not proposed again in this run
                continue;
            }
            write(t, kernels[i], run);
            const bool measured = run.outcome == CandidateRun::Outcome::Measured;
            t.latest[candidates[i].key()] = measured ? run.median_ms : -1;
            t.search->report(proposals[i], candidates[i], measured ? run.median_ms : -1);
            t.candidates++;
            if (!measured) t.rejected++;
            if (candidates[i].key() == t.default_key) {
                t.default_ms = measured ? run.median_ms : -1;
                t.default_failure = run.reason;
            }
            print_progress(progress(t), false);
        }
        drop_non_finalists(t);
    }

    static void warn_not_recorded(const Tuning &t, const std::string &key, const std::string &why) {
        std::cerr << "\ncortado: warning: " << t.layer.steps.front() << ", " << key << ": " << why
                  << "; not recorded, so a rerun tries it again\n";
    }

    TargetDescription target_;
    std::string db_path_;
    int jobs_, max_candidates_;
    double max_tolerance_;
    uint64_t seed_;
    Clock::time_point deadline_, phase_end_;
    std::chrono::duration<double> budget_;
    TemporaryDirectory scratch_;
    std::map<std::string, std::vector<TuningRecord>> earlier_;
    std::ofstream db_;
    std::vector<Tuning> tunings_;
    int current_ = 0;
};

}  // namespace

int command_tune(const std::vector<std::string> &args) {
    // Given as `--name value` or `--name=value`.
    const auto given = [&](const std::string &name) {
        return std::any_of(args.begin(), args.end(), [&](const std::string &a) {
            return a == "--" + name || a.rfind("--" + name + "=", 0) == 0;
        });
    };
    const bool no_network = given("suite") || given("import") || given("restamp");
    const CliArgs cli =
        parse_cli_args(args,
                       {"target", "batch", "input-shape", "budget", "db", "seed", "jobs", "max-candidates",
                        "max-tolerance", "suite", "set", "models", "prepare", "import", "restamp"},
                       {"quick"}, !no_network);
    if (cli.has("restamp")) {
        if (cli.options.size() != 1 || !cli.flags.empty() || !cli.positional.empty())
            throw CompileError("--restamp takes only the database file");
        restamp_tuning_records(cli.get("restamp"));
        return 0;
    }
    if (cli.has("import")) {
        if (!cli.positional.empty() || cli.has("suite") || cli.has("prepare"))
            throw CompileError("--import takes only --db");
        if (!cli.has("db")) std::filesystem::create_directories(std::filesystem::path(user_tuning_db()).parent_path());
        import_tuning_records(cli.get("import"), cli.get("db", user_tuning_db()));
        return 0;
    }
    const TargetDescription target = resolve_target(cli.get("target", "host"));
    if (!cli.has("prepare")) {
        const std::string why = why_cannot_run_here(target.halide_target);
        if (!why.empty())
            throw CompileError("`cortado tune` measures candidates here, but " + why +
                               "; for another machine: --prepare DIR, run tools/bench/tune_runner.py there, then --import");
    }
    const double minutes = parse_minutes(cli.get("budget", "10"));
    const std::string db = cli.get("db", user_tuning_db());
    if (!cli.has("db")) std::filesystem::create_directories(std::filesystem::path(db).parent_path());
    const int jobs = int(cli.get_count("jobs", std::max(1u, std::thread::hardware_concurrency())));
    const int max_candidates = int(cli.get_count("max-candidates", 1 << 30));
    if (jobs < 1 || max_candidates < 1) throw CompileError("--jobs and --max-candidates must be at least 1");
    double max_tolerance = 1.0;
    if (cli.has("max-tolerance")) {
        const std::string text = cli.get("max-tolerance");
        size_t used = 0;
        try {
            max_tolerance = std::stod(text, &used);
        } catch (const std::exception &) {
            used = 0;
        }
        if (used != text.size() || !(max_tolerance > 0) || !std::isfinite(max_tolerance))
            throw CompileError("--max-tolerance takes a relative L2 error above 0 such as 1e-5, not '" + text + "'");
    }
    const auto started = Clock::now();
    const auto deadline =
        started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(minutes * 60));

    const std::vector<NamedGraph> graphs = graphs_to_tune(cli);
    std::vector<TuneLayer> layers;
    std::vector<std::string> skipped;
    for (const NamedGraph &g : graphs) {
        const NetworkPlan plan = plan_network(g.fused, "net", target.plan_target(), cli_plan_options());
        for (TuneLayer &layer : tune_layers(g.fused, plan, &skipped)) {
            for (std::string &s : layer.steps) s = g.name + s;
            const auto same = std::find_if(layers.begin(), layers.end(),
                                           [&](const TuneLayer &l) { return l.signature == layer.signature; });
            if (same == layers.end()) layers.push_back(std::move(layer));
            else same->steps.insert(same->steps.end(), layer.steps.begin(), layer.steps.end());
        }
    }
    for (const std::string &s : skipped) std::cerr << "cortado: note: not tuned: " << s << "\n";
    if (cli.has("prepare")) {
        PrepareOptions options;
        options.dir = cli.get("prepare");
        options.db = db;
        options.candidates = int(cli.get_count("max-candidates", 8));
        options.jobs = jobs;
        options.seed = uint64_t(cli.get_int("seed", 1));
        options.max_tolerance = max_tolerance;
        prepare_tuning_bundles(layers, target, options);
        return 0;
    }
    Tuner tuner(target, db, jobs, max_candidates, max_tolerance, uint64_t(cli.get_int("seed", 1)), deadline);
    for (TuneLayer &layer : layers) tuner.add(std::move(layer));
    std::cout << "cortado tune: " << tuner.size() << " op signatures on " << target.name << " (" << target.halide_target
              << "), budget " << minutes << " min, " << jobs << " compile jobs, database " << db << "\n";

    struct sigaction action {};
    action.sa_handler = on_interrupt;
    action.sa_flags = SA_RESTART;  // the waits that must notice it check the flag themselves
    sigemptyset(&action.sa_mask);
    // Ctrl-C, a kill and a closed terminal all stop the tuner the same way: the running
    // candidates finish (or die with the same signal), nothing is recorded for them, and the
    // children are reaped before it exits.
    constexpr size_t kStops = std::size(kStopSignals);
    struct sigaction previous[kStops] {};
    for (size_t i = 0; i < kStops; i++) ::sigaction(kStopSignals[i], &action, &previous[i]);
    const auto restore = [&] {
        for (size_t i = 0; i < kStops; i++) ::sigaction(kStopSignals[i], &previous[i], nullptr);
    };
    try {
        tuner.run();
    } catch (...) {
        restore();
        throw;
    }
    restore();
    if (tuner.resumed())
        std::cout << "resumed: " << tuner.resumed() << " candidates measured by earlier runs were not run again\n";
    std::cout << tune_summary_table(tuner.summary());
    const double spent = std::chrono::duration<double>(Clock::now() - started).count();
    std::printf("%s after %.0f s of a %.0f s budget; records in %s\n",
                tuner.was_interrupted() ? "interrupted" : "finished", spent, minutes * 60, db.c_str());
    if (tuner.was_interrupted()) {
        std::cout << "every measured candidate is kept: run the same command again to resume\n";
        return 130;
    }
    return 0;
}

}  // namespace cortado
