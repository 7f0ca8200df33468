#include "compiler/tuner/candidate_search.h"

#include <algorithm>

#include "compiler/schedule_version.h"
#include "frontend/compile_error.h"
#include "frontend/content_hash.h"
#include "schedules/families.h"

namespace cortado {

std::vector<VariantDomain> variant_domains(const std::string &family, const std::string &op) {
    std::vector<VariantDomain> domains;
    schedules::families().at(family).for_each_op([&](const std::string &name, const auto &space) {
        if (name != op) return;
        for (const auto &v : space.variants) {
            VariantDomain d{v.name, {}, v.tolerance, v.channel_blocks};
            for (const schedules::KnobSpec &k : v.knobs) d.knobs.push_back({k.name, k.min, k.max});
            domains.push_back(d);
        }
    });
    return domains;
}

std::string Candidate::key() const {
    // By knob name, so that a record whose knobs come in another order is the same choice.
    std::vector<std::pair<std::string, int>> sorted = knobs;
    std::sort(sorted.begin(), sorted.end());
    std::string text = variant;
    for (const auto &[name, value] : sorted) text += " " + name + "=" + std::to_string(value);
    return text;
}

namespace {

std::string settings_key(const ChoiceSettings &s) { return Candidate{s.variant, s.knobs}.key(); }

}  // namespace

CandidateSearch::CandidateSearch(std::vector<VariantDomain> variants, uint64_t seed)
    : variants_(std::move(variants)), random_(seed) {}

std::optional<ChoiceSettings> CandidateSearch::next() {
    ChoiceSettings s;
    s.exact = true;
    // The default choice, the earlier winners, then each variant with the knobs its own default
    // rule gives.
    if (seeded_ == 0) {
        seeded_++;
        return s;
    }
    while (!revisits_.empty()) {
        const Candidate earlier = revisits_.front();
        revisits_.erase(revisits_.begin());
        if (tried(earlier)) continue;
        s.variant = earlier.variant;
        s.knobs = earlier.knobs;
        return s;
    }
    if (seeded_ <= variants_.size()) {
        s.variant = variants_[seeded_ - 1].name;
        seeded_++;
        return s;
    }
    if (variant_defaults_.empty()) return std::nullopt;  // no variant can compute the shape
    const bool anchored = best() || !default_key_.empty();
    if (anchored && std::uniform_int_distribution<int>(0, 2)(random_) < 2)
        if (auto move = neighbour()) return move;
    return random_sample();
}

const VariantDomain *CandidateSearch::domain(const std::string &variant) const {
    for (const VariantDomain &v : variants_)
        if (v.name == variant) return &v;
    return nullptr;  // a variant left out of the search (--max-tolerance) that the default uses
}

std::optional<ChoiceSettings> CandidateSearch::neighbour() {
    const Candidate &from = best() ? *best() : candidates_.at(default_key_);
    const VariantDomain *domain = this->domain(from.variant);
    if (!domain) return std::nullopt;
    std::vector<ChoiceSettings> moves;
    for (size_t i = 0; i < from.knobs.size(); i++) {
        const auto &[name, value] = from.knobs[i];
        const auto k =
            std::find_if(domain->knobs.begin(), domain->knobs.end(), [&](const auto &d) { return d.name == name; });
        if (k == domain->knobs.end()) continue;
        for (long long moved : {2LL * value, (long long)value / 2, value + 1LL, value - 1LL}) {
            if (moved < k->min || moved > k->max || moved == value) continue;
            ChoiceSettings s;
            s.exact = true;
            s.variant = from.variant;
            s.knobs = from.knobs;
            s.knobs[i].second = int(moved);
            if (proposed_moves_.count(settings_key(s)) || results_.count(settings_key(s))) continue;
            moves.push_back(s);
        }
    }
    if (moves.empty()) return std::nullopt;
    ChoiceSettings chosen = moves[std::uniform_int_distribution<size_t>(0, moves.size() - 1)(random_)];
    proposed_moves_.insert(settings_key(chosen));
    return chosen;
}

ChoiceSettings CandidateSearch::random_sample() {
    std::vector<const Candidate *> defaults;
    for (const auto &[variant, candidate] : variant_defaults_) defaults.push_back(&candidate);
    const Candidate &from = *defaults[std::uniform_int_distribution<size_t>(0, defaults.size() - 1)(random_)];
    const VariantDomain *domain = this->domain(from.variant);  // variant_defaults_ holds searched variants only
    ChoiceSettings s;
    s.exact = true;
    s.variant = from.variant;
    for (const auto &[name, value] : from.knobs) {
        const auto k =
            std::find_if(domain->knobs.begin(), domain->knobs.end(), [&](const auto &d) { return d.name == name; });
        if (k == domain->knobs.end() || std::uniform_int_distribution<int>(0, 1)(random_) == 0) continue;
        long long v = value;
        switch (std::uniform_int_distribution<int>(0, 4)(random_)) {
        case 0: v = 2LL * value; break;
        case 1: v = value / 2; break;
        case 2: v = 4LL * value; break;
        case 3: v = value / 4; break;
        default:  // anywhere up to a few times the default: domains are often far wider than useful
            v = std::uniform_int_distribution<long long>(k->min, std::min<long long>(k->max, 4LL * value + 4))(random_);
        }
        s.knobs.emplace_back(name, int(std::clamp<long long>(v, k->min, k->max)));
    }
    return s;
}

void CandidateSearch::revisit(const std::vector<Candidate> &earlier_best) {
    for (const Candidate &c : earlier_best)
        if (domain(c.variant)) revisits_.push_back(c);
}

void CandidateSearch::refused(const ChoiceSettings &) {}

void CandidateSearch::report_unmeasured(const ChoiceSettings &proposed, const Candidate &resolved) {
    const std::string key = resolved.key();
    unmeasured_.insert(key);
    candidates_[key] = resolved;
    if (proposed.variant.empty() && proposed.knobs.empty()) default_key_ = key;
    if (proposed.knobs.empty() && domain(resolved.variant) && !variant_defaults_.count(resolved.variant))
        variant_defaults_[resolved.variant] = resolved;
}

void CandidateSearch::report(const ChoiceSettings &proposed, const Candidate &resolved, double median_ms) {
    const std::string key = resolved.key();
    if (proposed.variant.empty() && proposed.knobs.empty()) default_key_ = key;
    results_[key] = median_ms;
    candidates_[key] = resolved;
    // A variant's own defaults (a proposal naming only the variant, or the default choice) are
    // where its random samples start, if they passed their check.
    unmeasured_.erase(key);
    if (proposed.knobs.empty() && median_ms >= 0 && domain(resolved.variant) &&
        !variant_defaults_.count(resolved.variant))
        variant_defaults_[resolved.variant] = resolved;
    if (median_ms >= 0 && (best_ms_ < 0 || median_ms < best_ms_ || (median_ms == best_ms_ && key < best_key_))) {
        best_ms_ = median_ms;
        best_key_ = key;
    }
}

CandidateSearch search_for(const std::string &family, const std::string &op, const std::string &signature,
                           uint64_t seed, double max_tolerance, bool blocks_only) {
    std::vector<VariantDomain> variants;
    for (VariantDomain &v : variant_domains(family, op))
        if (v.tolerance <= max_tolerance && (v.channel_blocks || !blocks_only)) variants.push_back(std::move(v));
    for (char c : content_hash_hex(signature)) seed = seed * 31 + uint64_t(c);
    return CandidateSearch(std::move(variants), seed);
}

int resume_from_records(const std::vector<TuningRecord> &records, CandidateSearch &search,
                        std::map<std::string, double> *latest) {
    int resumed = 0;
    std::map<std::string, Candidate> choices;
    std::map<std::string, std::pair<double, Candidate>> stale;  // choice -> latest median
    for (const TuningRecord &r : records) {
        if (r.hand_written() || r.variant.empty()) continue;
        try {
            if (r.schedule_version != schedule_version(r.op, r.variant)) {
                const Candidate c{r.variant, r.knobs};
                stale[c.key()] = {r.rejected ? -1 : r.median_ms, c};
                continue;
            }
        } catch (const CompileError &) {
            continue;  // a variant that no longer exists
        }
        const Candidate c{r.variant, r.knobs};
        (*latest)[c.key()] = r.rejected ? -1 : r.median_ms;  // later lines replace earlier ones
        choices[c.key()] = c;
    }
    for (const auto &[key, c] : choices) {
        if (search.tried(c)) continue;
        ChoiceSettings s;
        s.variant = c.variant;
        s.knobs = c.knobs;
        search.report(s, c, latest->at(key));
        resumed++;
    }
    std::vector<std::pair<double, Candidate>> earlier;
    for (const auto &[key, timed] : stale)
        if (timed.first >= 0) earlier.push_back(timed);
    std::sort(earlier.begin(), earlier.end(), [](const auto &a, const auto &b) {
        return std::make_pair(a.first, a.second.key()) < std::make_pair(b.first, b.second.key());
    });
    std::vector<Candidate> best;
    for (size_t i = 0; i < std::min<size_t>(2, earlier.size()); i++) best.push_back(earlier[i].second);
    search.revisit(best);
    return resumed;
}

}  // namespace cortado
