// Choosing how each op is computed. Settings come from up to four places, strongest first:
//   1. the plan options' knobs (PlanOptions::knobs; the CLI's $CORTADO_KNOBS), for experiments;
//   2. a tuning database (`--db FILE`): one JSON line per op signature with a variant and knobs;
//   3. the target description's knob table (`knob = op.knob=value` lines), family-wide;
//   4. the family's default rule (schedules/<family>/space.h).
// The variant is the strongest source's; each knob is the strongest source's that sets it, and
// the default rule fills in the rest. A knob the variant does not declare, or a value outside
// its domain, is an error naming the source, the knob and its range.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "frontend/compile_error.h"
#include "ops/choice.h"
#include "schedules/space.h"

namespace cortado {

// What one source says about one op.
struct ChoiceSettings {
    std::string source;   // PlanOptions::knobs_source, "target knobs", "FILE:LINE"
    std::string variant;  // empty: not set
    std::vector<std::pair<std::string, int>> knobs;
    std::string op;  // a record's op; empty for family-wide sources (keyed by op already)
    // From a record for this op signature: it must apply as written, unless a stronger source
    // chose another variant (then its knobs are not used). Family-wide sources may name knobs
    // of other variants, or a variant that cannot compute some layers; those layers keep the
    // next setting, and the plan notes why.
    bool exact = false;
    // > 0: a record measured on another machine with this many cores (compiler/record_transfer.h):
    // where this target has another number, its knobs that cut tasks are left to the default rule.
    int transferred_cores = 0;
};

// "op.knob=value,op.variant=name,..." -> settings per op name. Throws CompileError naming
// `source` for malformed items and unknown ops.
std::map<std::string, ChoiceSettings> parse_knob_table(const std::string &text, const std::string &source);

// Every op name the families know ("conv2d", "pooling", ...).
std::vector<std::string> op_names();

// Sources of a choice that are the compiler's own rules rather than a record or a user's
// setting: the op's default rule, and the planner's moves of a layer by its layouts (to a
// channel-blocked variant, or to the family's variant for NCHW).
inline constexpr const char *kDefaultRuleSource = "default rule";
inline constexpr const char *kLayoutRuleSource = "layout rule";
// The knob table of a target description (`target.knobs`).
inline constexpr const char *kTargetKnobsSource = "target knobs";
// Whether `source` is a tuning record (a file's line, possibly transferred from another machine)
// rather than a rule or the knob tables `cortado` itself reads (CORTADO_KNOBS, a description's).
inline bool is_record_source(const std::string &source) {
    return source != kDefaultRuleSource && source != kLayoutRuleSource && source != kTargetKnobsSource &&
           source != "CORTADO_KNOBS";
}

struct ResolvedChoice {
    ops::Choice choice;
    std::string variant_source;                                     // where the variant came from
    std::vector<std::pair<std::string, std::string>> knob_sources;  // knob -> where it came from
    // Family-wide settings this op did not take, and why (a variant that cannot compute it, a
    // knob of another variant); `cortado info --plan` shows them.
    std::vector<std::string> notes;
};

inline std::string knob_range(const schedules::KnobSpec &k) {
    return k.name + " " + std::to_string(k.min) + ".." + std::to_string(k.max);
}

template <typename Shape>
std::string variant_knobs(const schedules::VariantSpec<Shape> &v) {
    if (v.knobs.empty()) return "it has no knobs";
    std::string text = "its knobs: ";
    for (size_t i = 0; i < v.knobs.size(); i++) text += (i ? ", " : "") + knob_range(v.knobs[i]);
    return text;
}

// Throws CompileError (without the layer: the planner adds it).
template <typename Shape>
ResolvedChoice resolve_choice(const schedules::OpSpace<Shape> &space, const Shape &shape,
                              const schedules::TargetInfo &target,
                              const std::vector<const ChoiceSettings *> &strongest_first) {
    const std::string op = Shape::kOp;
    const std::string where = op + " on family " + target.family;
    ResolvedChoice resolved;
    if (space.variants.empty()) throw CompileError("family " + target.family + " has no variant for " + op);
    const auto variant_spec = [&](const std::string &name, const std::string &source) {
        const schedules::VariantSpec<Shape> *spec = space.find(name);
        if (spec) return spec;
        std::string names;
        for (const auto &v : space.variants) names += (names.empty() ? "" : ", ") + v.name;
        throw CompileError(source + ": " + where + " has no variant '" + name + "'; it has " + names);
    };
    // The variant: the strongest source's that can compute this shape. A record for this op
    // signature that asks for one that cannot is an error; a family-wide setting is noted.
    const schedules::VariantSpec<Shape> *spec = nullptr;
    for (const ChoiceSettings *s : strongest_first) {
        if (s->variant.empty()) continue;
        const schedules::VariantSpec<Shape> *candidate = variant_spec(s->variant, s->source);
        const std::string why_not = candidate->unsupported ? candidate->unsupported(shape) : "";
        if (why_not.empty()) {
            spec = candidate;
            resolved.variant_source = s->source;
            break;
        }
        if (s->exact) throw CompileError(s->source + ": variant " + s->variant + " of " + where + ": " + why_not);
        resolved.notes.push_back(s->source + ": " + s->variant + " not taken: " + why_not);
    }
    if (!spec) {
        spec = variant_spec(space.default_variant(shape, target), "the default rule");
        resolved.variant_source = kDefaultRuleSource;
        const std::string why_not = spec->unsupported ? spec->unsupported(shape) : "";
        if (!why_not.empty())
            throw CompileError("the default rule's variant " + spec->name + " of " + where + ": " + why_not);
    }
    const std::string &variant = spec->name;
    ops::Knobs knobs;
    std::map<std::string, std::string> sources;
    for (const ChoiceSettings *s : strongest_first) {
        // A record written for another variant: its knobs mean nothing for this one.
        if (s->exact && !s->variant.empty() && s->variant != variant) {
            if (!s->knobs.empty()) resolved.notes.push_back(s->source + ": knobs for " + s->variant + " not used");
            continue;
        }
        for (const auto &knob : s->knobs) {
            // Named copies: lambdas cannot capture structured bindings before C++20 (clang 15).
            const std::string &name = knob.first;
            const auto &value = knob.second;
            if (sources.count(name)) continue;  // a stronger source set it
            const auto declared = std::find_if(spec->knobs.begin(), spec->knobs.end(),
                                               [&](const schedules::KnobSpec &k) { return k.name == name; });
            if (declared == spec->knobs.end()) {
                const bool other_variants =
                    std::any_of(space.variants.begin(), space.variants.end(), [&](const auto &v) {
                        return std::any_of(v.knobs.begin(), v.knobs.end(),
                                           [&](const auto &k) { return k.name == name; });
                    });
                if (!s->exact && other_variants) {
                    resolved.notes.push_back(s->source + ": " + name + " is not a knob of " + variant);
                    continue;
                }
                throw CompileError(s->source + ": " + where + ", variant " + variant + ", has no knob '" + name +
                                   "'; " + variant_knobs(*spec));
            }
            if (s->transferred_cores > 0 && s->transferred_cores != target.cores && declared->splits_tasks) {
                resolved.notes.push_back(s->source + ": " + name + " cut tasks for " +
                                         std::to_string(s->transferred_cores) +
                                         " cores; the default rule cuts them for " + std::to_string(target.cores));
                continue;
            }
            if (value < declared->min || value > declared->max)
                throw CompileError(s->source + ": " + op + " knob " + name + " = " + std::to_string(value) +
                                   " is out of range: " + knob_range(*declared) + " (" + declared->meaning + ")");
            knobs.set(name, value);
            sources[name] = s->source;
        }
    }
    spec->complete(shape, target, knobs);
    // In the declared order, so that equal choices print and hash alike.
    for (const schedules::KnobSpec &k : spec->knobs) {
        if (!knobs.has(k.name))
            throw CompileError("the default rule of " + variant + " (" + where + ") left knob " + k.name + " unset");
        const int value = knobs.get(k.name);
        if (!sources.count(k.name) && (value < k.min || value > k.max))
            throw CompileError("the default rule of " + variant + " (" + where + ") gave " + k.name + " = " +
                               std::to_string(value) + ", out of its range " + knob_range(k) +
                               "; check the target description's vector_bits and registers_per_thread");
        resolved.choice.knobs.values.emplace_back(k.name, value);
        resolved.knob_sources.emplace_back(k.name, sources.count(k.name) ? sources[k.name] : kDefaultRuleSource);
    }
    if (spec->violated) {
        const std::string broken = spec->violated(shape, target, resolved.choice.knobs);
        if (!broken.empty()) {
            std::string from;
            for (const auto &[name, source] : sources) from += (from.empty() ? "" : ", ") + name + " from " + source;
            throw CompileError(where + ", variant " + variant + ": " + broken +
                               (from.empty() ? "" : " (" + from + ")"));
        }
    }
    resolved.choice.variant = variant;
    resolved.choice.form = spec->form;
    resolved.choice.tolerance = spec->tolerance;
    resolved.choice.weights = spec->weights;
    return resolved;
}

}  // namespace cortado
