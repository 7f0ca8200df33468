#include "compiler/tuner/tuner.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>

#include "frontend/compile_error.h"
#include "ops/conv2d_pool.h"

namespace cortado {

namespace {

// The choice the database will offer: the least latest median (ties by key, as it does).
std::string fastest(const std::map<std::string, double> &latest) {
    std::string best;
    for (const auto &[key, ms] : latest)
        if (ms >= 0 && (best.empty() || ms < latest.at(best))) best = key;
    return best;
}

// A choice written out in full, from its key ("variant knob=value ...").
ChoiceSettings settings_of_key(const std::string &key) {
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

std::string steps_text(const TuneLayer &layer) {
    std::string text;
    for (const std::string &s : layer.steps) text += (text.empty() ? "" : ", ") + s;
    return text;
}

}  // namespace

Tuner::Tuner(Runner &runner, TunerOptions options) : runner_(runner), options_(std::move(options)) {
    const TuningDbFile existing = read_tuning_records(options_.db, false);
    for (const std::string &w : existing.warnings) note("warning: " + w);
    for (const TuningRecord &r : existing.records) earlier_[r.op_signature].push_back(r);
    db_.open(options_.db, std::ios::app);
    if (!db_) throw CompileError(options_.db + ": cannot write the tuning database");
}

Tuner::~Tuner() = default;

void Tuner::add(TuneLayer layer) {
    Tuning t;
    t.layer = std::move(layer);
    tunings_.push_back(std::move(t));
}

int Tuner::resumed() const {
    int n = 0;
    for (const Tuning &t : tunings_) n += t.resumed;
    return n;
}

double Tuner::now() const {
    if (options_.clock) return options_.clock();
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool Tuner::stopped() const { return stopped_by_user() || now() >= phase_end_; }

double Tuner::seconds_left() const { return std::max(0.0, phase_end_ - now()); }

void Tuner::note(const std::string &text) const {
    if (options_.note) options_.note(text);
    else std::cerr << "cortado: " << text << "\n";
}

// Opens the signature's runner and search; false (with a note) when the layer cannot be tuned.
bool Tuner::start(Tuning &t) {
    try {
        t.runner = runner_.open(t.layer);
    } catch (const CompileError &e) {  // this layer cannot be tuned alone; the others can
        note("note: not tuned: " + std::string(e.what()));
        return false;
    }
    t.search = std::make_unique<CandidateSearch>(search_for(t.layer.default_kernel.family, t.layer.default_kernel.op,
                                                            t.layer.signature, options_.seed, options_.max_tolerance,
                                                            t.layer.blocked()));
    // Records of earlier runs count as tried; only current schedule versions do.
    t.resumed = resume_from_records(earlier_[t.layer.signature], *t.search, &t.latest);
    const auto seed = options_.seeds.find(t.layer.signature);
    if (seed != options_.seeds.end()) t.search->revisit({Candidate{seed->second.variant, seed->second.knobs}});
    return true;
}

void Tuner::run(double budget_seconds) {
    budgeted_ = true;
    deadline_ = phase_end_ = now() + budget_seconds;
    // First pass: every default, which also sizes each signature's share of the time.
    for (size_t i = 0; i < tunings_.size() && !stopped(); i++) {
        Tuning &t = tunings_[i];
        current_ = int(i) + 1;
        if (!start(t)) continue;
        step(t, 1);
        report(t, true);
        if (!t.default_failure.empty())
            note("note: " + t.layer.steps.front() +
                 ": the default choice failed its check, so it is not tuned: " + t.default_failure);
    }
    const auto weight = [](const Tuning *t) { return t->default_ms * double(t->layer.steps.size()); };
    std::vector<Tuning *> order;
    for (Tuning &t : tunings_)
        if (t.default_ms > 0) order.push_back(&t);
    if (order.empty() && !tunings_.empty() && !stopped())
        throw CompileError("the default choice of every op signature failed here (" + tunings_.front().default_failure +
                           "): is the device there? For another machine: --prepare DIR");
    std::stable_sort(order.begin(), order.end(),
                     [&](const Tuning *a, const Tuning *b) { return weight(a) > weight(b); });
    // Convolution + pooling pairs last, so that their `unfused` runs the other signatures' best.
    std::stable_partition(order.begin(), order.end(), [](const Tuning *t) { return !is_pair(*t); });
    double weight_left = 0;
    for (const Tuning *t : order) weight_left += weight(t);
    // The last tenth of the budget measures each signature's finalists once more, side by side.
    phase_end_ = deadline_ - 0.1 * budget_seconds;
    for (Tuning *t : order) {
        if (stopped()) break;
        current_ = int(t - tunings_.data()) + 1;
        const double until = now() + seconds_left() * weight(t) / weight_left;
        weight_left -= weight(t);
        while (!stopped() && !t->exhausted && now() < until && t->candidates + t->resumed < options_.max_candidates)
            step(*t, std::min(options_.jobs, options_.max_candidates - t->candidates - t->resumed));
        report(*t, true);
    }
    phase_end_ = deadline_;
    for (Tuning *t : order)
        if (!stopped()) confirm(*t);
}

bool Tuner::is_pair(const Tuning &t) { return t.layer.default_kernel.op == ops::Conv2dPoolShape::kOp; }

// A pair's `unfused` runs its convolution and pooling on the other signatures' fastest choices
// so far; where those changed since it was built, it is built again.
void Tuner::share_fastest(Tuning &t) {
    if (!is_pair(t)) return;
    std::map<std::string, std::string> fastest_keys, current_keys;  // signature -> choice key
    for (const Tuning &other : tunings_) {
        const std::string best = fastest(other.latest);
        if (&other != &t && !is_pair(other) && !best.empty()) fastest_keys[other.layer.signature] = best;
    }
    for (const auto &[signature, s] : t.layer.neighbours) current_keys[signature] = Candidate{s.variant, s.knobs}.key();
    if (fastest_keys == current_keys) return;
    t.layer.neighbours.clear();
    for (const auto &[signature, key] : fastest_keys) {
        ChoiceSettings s = settings_of_key(key);
        s.source = "the tuner's fastest so far";
        t.layer.neighbours[signature] = s;
    }
    if (const auto built = t.built.find(t.default_key); built != t.built.end()) {
        t.runner->discard(built->second);
        t.built.erase(built);
    }
}

// Up to `count` candidates of the search not tried yet, each resolved by the planner, from at
// most `max_attempts` proposals. The search hears of proposals the plan refuses and of choices
// tried before; with `elsewhere` (measured on another machine) the new ones count as tried at once.
Tuner::Batch Tuner::propose(Tuning &t, int count, int max_attempts, bool elsewhere) {
    Batch batch;
    for (int attempts = 0; int(batch.settings.size()) < count;) {
        const std::optional<ChoiceSettings> proposal = t.search->next();
        if (!proposal || ++attempts > max_attempts) {
            t.exhausted = batch.settings.empty();
            break;
        }
        std::string why;
        const std::optional<KernelInstance> k =
            resolve_candidate(t.layer, options_.target, options_.plan, *proposal, &why);
        if (!k) {
            t.search->refused(*proposal);
            continue;
        }
        const Candidate c{k->choice.variant, k->choice.knobs.values};
        if (proposal->variant.empty() && proposal->knobs.empty()) t.default_key = c.key();
        const bool in_batch = std::any_of(batch.candidates.begin(), batch.candidates.end(),
                                          [&](const Candidate &o) { return o.key() == c.key(); });
        if (in_batch) continue;
        if (t.search->tried(c)) {
            if (t.search->measured(c)) t.search->report(*proposal, c, t.search->result(c));
            if (c.key() == t.default_key && t.search->measured(c))
                t.default_ms = t.latest.count(c.key()) ? t.latest.at(c.key()) : t.search->result(c);
            continue;
        }
        if (elsewhere) t.search->report_unmeasured(*proposal, c);
        batch.settings.push_back(*proposal);
        batch.kernels.push_back(*k);
        batch.candidates.push_back(c);
    }
    return batch;
}

// Proposes up to `count` new candidates, builds them together and measures each.
void Tuner::step(Tuning &t, int count) {
    share_fastest(t);
    const Batch batch = propose(t, count, 200, false);
    const std::vector<ChoiceSettings> &proposals = batch.settings;
    const std::vector<KernelInstance> &kernels = batch.kernels;
    const std::vector<Candidate> &candidates = batch.candidates;
    if (proposals.empty() || stopped()) return;
    report(t, false);
    std::vector<std::string> errors;
    const std::vector<std::string> built = t.runner->compile(proposals, options_.jobs, &errors);
    for (size_t i = 0; i < proposals.size(); i++) {
        // Built, so measured even at the end of the signature's time; a stop leaves it unmeasured
        // (a rerun finds its kernels in the cache).
        if (stopped_by_user()) return;
        CandidateRun run;
        if (built[i].empty()) {
            if (errors[i] == kStoppedByUser) return;
            if (errors[i] == kKilledFromOutside) {
                run.outcome = CandidateRun::Outcome::KilledFromOutside;
                run.reason = "its compile was " + errors[i];
            } else {
                run.reason = "does not compile: " + errors[i].substr(0, 400);
            }
        } else {
            t.built[candidates[i].key()] = built[i];
            run = t.runner->measure(built[i], kernels[i].choice.tolerance, t.search->best_ms());
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
        report(t, false);
    }
    drop_non_finalists(t);
}

namespace {

// The default (when it passed) and the two fastest other choices so far.
std::vector<std::string> finalists_of(const std::map<std::string, double> &latest, const std::string &default_key) {
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto &[key, ms] : latest)
        if (ms >= 0 && key != default_key) ranked.emplace_back(ms, key);
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::string> finalists;
    if (latest.count(default_key) && latest.at(default_key) >= 0) finalists.push_back(default_key);
    for (size_t i = 0; i < ranked.size() && i < 2; i++) finalists.push_back(ranked[i].second);
    return finalists;
}

}  // namespace

// Only the finalists are measured again (confirm() builds any it lacks), so the others' builds
// (a library of about 1 MB each) go as soon as they drop out.
void Tuner::drop_non_finalists(Tuning &t) {
    const std::vector<std::string> keep = finalists_of(t.latest, t.default_key);
    for (auto it = t.built.begin(); it != t.built.end();) {
        if (std::find(keep.begin(), keep.end(), it->first) != keep.end()) {
            ++it;
            continue;
        }
        t.runner->discard(it->second);
        it = t.built.erase(it);
    }
}

// Measures the default and the two fastest other choices once more, one after another, so that
// the summary compares times taken together and a lucky first timing does not decide.
void Tuner::confirm(Tuning &t) {
    share_fastest(t);
    const std::vector<std::string> finalists = finalists_of(t.latest, t.default_key);
    if (finalists.size() < 2) return;
    std::vector<ChoiceSettings> missing;
    std::vector<std::string> missing_keys;
    for (const std::string &key : finalists)
        if (!t.built.count(key)) {
            missing.push_back(settings_of_key(key));
            missing_keys.push_back(key);
        }
    if (!missing.empty()) {
        std::vector<std::string> errors;
        const std::vector<std::string> built = t.runner->compile(missing, options_.jobs, &errors);
        for (size_t i = 0; i < built.size(); i++)
            if (!built[i].empty()) t.built[missing_keys[i]] = built[i];
    }
    for (const std::string &key : finalists) {
        if (stopped() || !t.built.count(key)) continue;
        std::string why;
        const std::optional<KernelInstance> k =
            resolve_candidate(t.layer, options_.target, options_.plan, settings_of_key(key), &why);
        if (!k) continue;
        const CandidateRun run = t.runner->measure(t.built.at(key), k->choice.tolerance, -1);
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
    report(t, true);
}

PrepareSummary Tuner::prepare(int count) {
    PrepareSummary summary;
    budgeted_ = false;
    deadline_ = phase_end_ = now() + 1e18;  // no budget: a number of candidates
    for (size_t i = 0; i < tunings_.size() && !stopped(); i++) {
        Tuning &t = tunings_[i];
        current_ = int(i) + 1;
        if (!start(t)) continue;
        summary.measured_before += t.resumed;
        const Batch batch = propose(t, count, 400, true);
        const std::vector<ChoiceSettings> &proposals = batch.settings;
        const std::vector<KernelInstance> &kernels = batch.kernels;
        std::vector<std::string> errors;
        const std::vector<std::string> built = t.runner->compile(proposals, options_.jobs, &errors);
        for (size_t j = 0; j < proposals.size(); j++) {
            if (!built[j].empty()) {
                summary.built++;
                t.candidates++;
                continue;
            }
            if (errors[j] == kStoppedByUser) break;
            if (errors[j] == kKilledFromOutside) {
                warn_not_recorded(t, Candidate{kernels[j].choice.variant, kernels[j].choice.knobs.values}.key(),
                                  "its compile was " + errors[j]);
                continue;
            }
            CandidateRun run;
            run.reason = "does not compile: " + errors[j].substr(0, 400);
            write(t, kernels[j], run);
            summary.rejected++;
            t.rejected++;
        }
        report(t, true);
    }
    return summary;
}

void Tuner::write(const Tuning &t, const KernelInstance &k, const CandidateRun &run) {
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

void Tuner::warn_not_recorded(const Tuning &t, const std::string &key, const std::string &why) const {
    note("warning: " + t.layer.steps.front() + ", " + key + ": " + why + "; not recorded, so a rerun tries it again");
}

const TuningRecord *Tuner::last_hand_written(const std::string &signature) const {
    const auto records = earlier_.find(signature);
    if (records == earlier_.end()) return nullptr;
    for (auto r = records->second.rbegin(); r != records->second.rend(); ++r)
        if (r->hand_written()) return &*r;
    return nullptr;
}

TuneProgress Tuner::progress(const Tuning &t) const {
    TuneProgress p;
    p.index = current_;
    p.count = int(tunings_.size());
    p.steps = steps_text(t.layer);
    p.candidates = t.candidates + t.resumed;
    p.rejected = t.rejected;
    p.default_ms = t.default_ms;
    const std::string best = fastest(t.latest);
    p.best_ms = best.empty() ? -1 : t.latest.at(best);
    p.seconds_left = budgeted_ ? seconds_left() : -1;
    return p;
}

void Tuner::report(const Tuning &t, bool done) const {
    if (options_.progress) options_.progress(progress(t), done);
}

std::vector<TuneSummaryRow> Tuner::summary() const {
    std::vector<TuneSummaryRow> rows;
    for (const Tuning &t : tunings_) {
        TuneSummaryRow row;
        row.steps = steps_text(t.layer);
        row.step_count = int(t.layer.steps.size());
        row.default_ms = t.default_ms;
        const std::string best = fastest(t.latest);
        if (!best.empty()) {
            row.tuned_ms = t.latest.at(best);
            row.choice = best == t.default_key ? "default (" + best + ")" : best;
        }
        // The database offers a hand-written record before any measured one (compiler/tuning_db.h).
        if (const TuningRecord *hand = last_hand_written(t.layer.signature))
            row.choice = "the hand-written record at " + hand->where + " (" + hand->variant + "), not the measured " +
                         (best.empty() ? "choices" : best);
        row.candidates = t.candidates + t.resumed;
        row.rejected = t.rejected;
        rows.push_back(row);
    }
    return rows;
}

}  // namespace cortado
