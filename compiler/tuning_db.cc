#include "compiler/tuning_db.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "compiler/install_layout.h"
#include "compiler/json_text.h"
#include "compiler/kernel_builder.h"
#include "compiler/record_transfer.h"
#include "compiler/schedule_version.h"
#include "frontend/compile_error.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

using Json = nlohmann::ordered_json;

// Throws std::invalid_argument with the reason a line is not a record.
TuningRecord parse_record(const std::string &line) {
    Json json;
    try {
        json = Json::parse(line);
    } catch (const Json::parse_error &e) {
        throw std::invalid_argument(std::string("not a JSON object: ") + e.what());
    }
    if (!json.is_object()) throw std::invalid_argument("not a JSON object");
    auto text = [&](const char *key, bool required) -> std::string {
        if (!json.contains(key)) {
            if (required) throw std::invalid_argument(std::string("the record has no \"") + key + "\"");
            return "";
        }
        if (!json[key].is_string()) throw std::invalid_argument(std::string("\"") + key + "\" must be a string");
        return json[key].get<std::string>();
    };
    auto number = [&](const char *key) -> double {
        if (!json.contains(key)) return -1;
        if (!json[key].is_number()) throw std::invalid_argument(std::string("\"") + key + "\" must be a number");
        return json[key].get<double>();
    };
    TuningRecord r;
    r.op_signature = text("op_signature", true);
    r.op = text("op", true);
    const std::vector<std::string> ops = op_names();
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) throw std::invalid_argument("no op '" + r.op + "'");
    r.variant = text("variant", false);
    if (json.contains("knobs")) {
        if (!json["knobs"].is_object()) throw std::invalid_argument("\"knobs\" must be an object");
        for (const auto &[name, value] : json["knobs"].items()) {
            if (!value.is_number_integer())
                throw std::invalid_argument("knob " + name + " must be a whole number, not " + value.dump());
            const auto v = value.get<long long>();
            if (v < INT32_MIN || v > INT32_MAX) throw std::invalid_argument("knob " + name + " is out of range");
            r.knobs.emplace_back(name, int(v));
        }
    }
    r.layer = text("layer", false);
    r.shape = text("shape", false);
    r.target = text("target", false);
    r.family = text("family", false);
    r.schedule_version = text("schedule_version", false);
    r.date = text("date", false);
    r.reason = text("reason", false);
    if (json.contains("rejected")) {
        if (!json["rejected"].is_boolean()) throw std::invalid_argument("\"rejected\" must be true or false");
        r.rejected = json["rejected"].get<bool>();
    }
    r.median_ms = number("median_ms");
    r.min_ms = number("min_ms");
    r.max_ms = number("max_ms");
    r.repetitions = int(std::max(0.0, number("repetitions")));
    r.error = number("error");
    r.tolerance = number("tolerance");
    if (!r.rejected && r.median_ms >= 0 && r.variant.empty())
        throw std::invalid_argument("a measured record must name its variant");
    return r;
}

// By knob name: the same choice whatever order a record lists its knobs in.
std::string knob_text(const TuningRecord &r) {
    std::vector<std::pair<std::string, int>> sorted = r.knobs;
    std::sort(sorted.begin(), sorted.end());
    std::string text;
    for (const auto &[name, value] : sorted) text += name + "=" + std::to_string(value) + " ";
    return text;
}

// Orders measured records: the faster first, then by variant and knobs, so that equal medians
// choose alike whatever the order of the lines.
bool better(const TuningRecord &a, const TuningRecord &b) {
    if (a.median_ms != b.median_ms) return a.median_ms < b.median_ms;
    if (a.variant != b.variant) return a.variant < b.variant;
    return knob_text(a) < knob_text(b);
}

// Empty when the record's schedule version is current (or it gives none); else why not.
std::string stale(const TuningRecord &r) {
    if (r.schedule_version.empty()) return "";
    std::string current;
    try {
        current = schedule_version(r.op, r.variant);
    } catch (const CompileError &) {
        return r.where + ": variant " + r.variant + " of " + r.op + " no longer exists; record ignored";
    }
    if (current == r.schedule_version) return "";
    return r.where + ": record for " + r.variant + " measured at schedule version " + r.schedule_version +
           "; the variant is now at " + current + ", so it is ignored (rerun `cortado tune`)";
}

ChoiceSettings settings_of(const TuningRecord &r) {
    ChoiceSettings s;
    s.source = r.where;
    s.op = r.op;
    s.exact = true;
    s.variant = r.variant;
    s.knobs = r.knobs;
    return s;
}

}  // namespace

TuningRecord tuning_record_for(const KernelInstance &kernel, const std::string &layer) {
    TuningRecord r;
    r.op_signature = kernel.op_signature_hash();
    r.op = kernel.op;
    r.layer = layer;
    r.variant = kernel.choice.variant;
    r.knobs = kernel.choice.knobs.values;
    r.tolerance = kernel.choice.tolerance;
    r.shape = kernel.shape;
    r.target = kernel.target;
    r.family = kernel.family;
    r.schedule_version = schedule_version(kernel.op, kernel.choice.variant);
    const std::time_t now = std::time(nullptr);
    char date[16];
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    r.date = date;
    return r;
}

std::string tuning_record_json(const TuningRecord &r) {
    Json json;
    json["op_signature"] = r.op_signature;
    json["op"] = r.op;
    if (!r.layer.empty()) json["layer"] = r.layer;
    json["variant"] = r.variant;
    Json knobs = Json::object();
    for (const auto &[name, value] : r.knobs) knobs[name] = value;
    json["knobs"] = knobs;
    if (r.rejected) {
        json["rejected"] = true;
        json["reason"] = r.reason;
    }
    if (r.median_ms >= 0 && std::isfinite(r.median_ms) && std::isfinite(r.max_ms)) {
        json["median_ms"] = r.median_ms;
        json["min_ms"] = r.min_ms;
        json["max_ms"] = r.max_ms;
        json["repetitions"] = r.repetitions;
    }
    if (r.error >= 0 && std::isfinite(r.error)) json["error"] = r.error;  // JSON has no infinity
    if (r.tolerance >= 0) json["tolerance"] = r.tolerance;
    for (const auto &[key, value] : {std::pair<const char *, const std::string *>{"shape", &r.shape},
                                     {"target", &r.target},
                                     {"family", &r.family},
                                     {"schedule_version", &r.schedule_version},
                                     {"date", &r.date}})
        if (!value->empty()) json[key] = *value;
    return json_text(json, -1);
}

TuningDbFile read_tuning_records(const std::string &path, bool must_exist) {
    TuningDbFile file;
    std::ifstream in(path);
    if (!in) {
        if (must_exist || fs::exists(path)) throw CompileError(path + ": cannot read the tuning database");
        return file;
    }
    int line_number = 0;
    for (std::string line; std::getline(in, line);) {
        line_number++;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = path + ":" + std::to_string(line_number);
        try {
            TuningRecord record = parse_record(line);
            record.where = where;
            file.records.push_back(std::move(record));
        } catch (const std::invalid_argument &e) {
            file.warnings.push_back(where + ": skipped: " + e.what());
        }
    }
    return file;
}

void add_tuning_records(const TuningDbFile &file, TuningChoices &choices) {
    std::map<std::string, const TuningRecord *> hand_written;
    // The latest measurement of each choice (a rejected one included), by signature.
    std::map<std::string, std::map<std::string, const TuningRecord *>> latest;
    std::map<std::string, std::vector<std::string>> stale_notes;
    for (const TuningRecord &r : file.records) {
        if (choices.records.count(r.op_signature)) continue;  // a stronger database decides
        if (r.hand_written()) {
            hand_written[r.op_signature] = &r;  // the last one wins
            continue;
        }
        const std::string why = stale(r);
        if (!why.empty()) {
            stale_notes[r.op_signature].push_back(why);
            continue;
        }
        latest[r.op_signature][r.variant + " " + knob_text(r)] = &r;
    }
    for (const auto &[signature, choices_measured] : latest) {
        if (hand_written.count(signature)) continue;
        const TuningRecord *best = nullptr;
        for (const auto &[key, record] : choices_measured)
            if (record->measured() && (!best || better(*record, *best))) best = record;
        if (best) hand_written[signature] = best;
    }
    for (const auto &[signature, record] : hand_written) choices.records[signature] = settings_of(*record);
    for (auto &[signature, notes] : stale_notes) {
        std::vector<std::string> &kept = choices.notes[signature];
        kept.insert(kept.end(), notes.begin(), notes.end());
    }
    choices.warnings.insert(choices.warnings.end(), file.warnings.begin(), file.warnings.end());
}

std::string user_tuning_db() { return (fs::path(kernel_cache_dir()) / "tuning.jsonl").string(); }

std::vector<std::string> shipped_tuning_dbs() {
    std::vector<std::string> files;
    const fs::path dir = fs::path(data_dir()) / "targets" / "tuning";
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".jsonl") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

TuningChoices load_tuning_choices(const std::string &explicit_db, bool untuned, const TargetDescription *transfer_to,
                                  double farthest) {
    TuningChoices choices;
    if (untuned) return choices;
    std::vector<std::pair<std::string, bool>> files;  // path, must exist
    if (!explicit_db.empty()) files.emplace_back(explicit_db, true);
    files.emplace_back(user_tuning_db(), false);
    for (const std::string &shipped : shipped_tuning_dbs()) files.emplace_back(shipped, false);
    std::set<std::string> seen;
    std::vector<TuningDbFile> read;
    for (const auto &[path, must_exist] : files) {
        std::error_code ec;
        const std::string canonical = fs::weakly_canonical(path, ec).string();
        if (!seen.insert(ec ? path : canonical).second) continue;
        read.push_back(read_tuning_records(path, must_exist));
        if (fs::exists(path)) choices.files.push_back(path);
        add_tuning_records(read.back(), choices);
    }
    if (transfer_to) add_transferred_records(read, *transfer_to, choices, farthest);
    return choices;
}

void report_tuning_notes(const TuningChoices &choices, const NetworkPlan &plan) {
    for (const std::string &warning : choices.warnings) std::cerr << "cortado: warning: " << warning << "\n";
    for (const TuningChoices::Transfer &t : choices.transfers) {
        const std::string mark = "(transferred from " + t.name + ")";
        int kernels = 0;
        for (const KernelInstance &k : plan.kernels)
            if (k.variant_source.find(mark) != std::string::npos) kernels++;
        if (kernels > 0)
            std::cerr << "cortado: note: " << kernels << " of " << plan.kernels.size()
                      << " kernels take tuning records measured on " << t.name << " (machine distance " << t.distance
                      << "; --no-transfer uses this target's records only)\n";
    }
    std::set<std::string> reported;
    for (const KernelInstance &k : plan.kernels) {
        const auto found = choices.notes.find(k.op_signature_hash());
        if (found == choices.notes.end() || !reported.insert(found->first).second) continue;
        const size_t shown = std::min<size_t>(found->second.size(), 2);
        for (size_t i = 0; i < shown; i++) std::cerr << "cortado: note: " << found->second[i] << "\n";
        if (found->second.size() > shown)
            std::cerr << "cortado: note: and " << found->second.size() - shown << " more stale records of op signature "
                      << found->first << "\n";
    }
}

ChoiceOverrides read_tuning_db(const std::string &path) {
    TuningChoices choices;
    add_tuning_records(read_tuning_records(path, true), choices);
    return choices.records;
}

}  // namespace cortado
