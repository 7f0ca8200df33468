// What the tuner (tuner.h) tries for one op signature, in order: the default choice, then every other
// variant with its own default knobs, then a mix of local moves around the fastest choice so far
// (one knob doubled, halved, or moved by one) and random samples (a variant, and some of its
// knobs scaled by a power of two from its defaults or drawn from the knob's whole domain; the
// default rule fills in the knobs a sample leaves out, so that dependent knobs stay consistent).
// The proposals depend only on the seed and on the results reported so far; a rerun reports the
// records of earlier runs first, so it never proposes what they hold again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "compiler/kernel_choice.h"
#include "compiler/tuning_db.h"

namespace cortado {

struct KnobDomain {
    std::string name;
    int min = 0, max = 0;
};

struct VariantDomain {
    std::string name;
    std::vector<KnobDomain> knobs;
    float tolerance = 0;
    bool channel_blocks = false;  // it also reads and writes channel-blocked tensors
};

// The variants a family offers for an op, with their knob domains.
std::vector<VariantDomain> variant_domains(const std::string &family, const std::string &op);

// A choice written out in full: the variant and every knob, as the plan resolved them.
struct Candidate {
    std::string variant;
    std::vector<std::pair<std::string, int>> knobs;
    std::string key() const;  // "variant knob=value ...", knobs by name
};

class CandidateSearch {
  public:
    CandidateSearch(std::vector<VariantDomain> variants, uint64_t seed);

    // The next setting to try: the variant and the knobs it fixes (the rest come from the
    // variant's default rule; no variant: the default choice). Unset: nothing left to propose.
    std::optional<ChoiceSettings> next();
    // Choices that were fastest under an earlier schedule version, fastest first: proposed right
    // after the default, so that tuning again after a schedule change starts from them.
    void revisit(const std::vector<Candidate> &earlier_best);
    // The plan refused `proposed` (a limit of the shape or the device).
    void refused(const ChoiceSettings &proposed);
    // `proposed` resolved to `resolved`, which measured `median_ms` (< 0: rejected). Also takes
    // records of an earlier run (`proposed` then names the resolved choice in full).
    void report(const ChoiceSettings &proposed, const Candidate &resolved, double median_ms);
    // `proposed` resolved to `resolved`, which will be measured elsewhere (a GPU this machine
    // lacks): it counts as tried, and moves start from the default until measurements arrive.
    void report_unmeasured(const ChoiceSettings &proposed, const Candidate &resolved);
    bool tried(const Candidate &candidate) const {
        return results_.count(candidate.key()) > 0 || unmeasured_.count(candidate.key()) > 0;
    }
    bool measured(const Candidate &candidate) const { return results_.count(candidate.key()) > 0; }
    // The median a measured candidate took (< 0: rejected).
    double result(const Candidate &candidate) const { return results_.at(candidate.key()); }

    const Candidate *best() const { return best_key_.empty() ? nullptr : &candidates_.at(best_key_); }
    double best_ms() const { return best_ms_; }

  private:
    ChoiceSettings random_sample();
    std::optional<ChoiceSettings> neighbour();

    std::vector<VariantDomain> variants_;
    std::mt19937_64 random_;
    size_t seeded_ = 0;                // proposals made of the default and of each variant's defaults
    std::vector<Candidate> revisits_;  // earlier winners not proposed yet
    const VariantDomain *domain(const std::string &variant) const;

    std::map<std::string, double> results_;  // key -> median (< 0: rejected)
    std::set<std::string> unmeasured_;       // proposed for another machine, not measured yet
    std::map<std::string, Candidate> candidates_;
    std::map<std::string, Candidate> variant_defaults_;  // resolved defaults, by variant
    std::set<std::string> proposed_moves_;               // local moves already proposed
    std::string best_key_;
    double best_ms_ = -1;
    std::string default_key_;  // the default choice, once resolved
};

// The search for one op signature: the variants its family offers for the op, less those looser
// than `max_tolerance` and, with `blocks_only`, those that cannot read and write channel blocks,
// with a random stream seeded from `seed` and the signature.
CandidateSearch search_for(const std::string &family, const std::string &op, const std::string &signature,
                           uint64_t seed, double max_tolerance, bool blocks_only = false);

// Reports the records of earlier runs for the search's signature (`records`: that signature's,
// from a tuning database) as tried, where their schedule version is current; fills `latest`
// (choice -> its latest median, < 0 rejected). The two fastest choices among records of an
// older schedule version are to be revisited. Returns how many current choices they covered.
int resume_from_records(const std::vector<TuningRecord> &records, CandidateSearch &search,
                        std::map<std::string, double> *latest);

}  // namespace cortado
