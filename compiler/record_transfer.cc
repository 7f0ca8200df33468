#include "compiler/record_transfer.h"

#include <algorithm>
#include <map>
#include <set>

#include "Halide.h"
#include "compiler/kernel_plan.h"
#include "compiler/plan_target.h"
#include "compiler/target_features.h"
#include "schedules/machine_model.h"

namespace cortado {

namespace {

struct SourceMachine {
    std::string target;  // the records' Halide target
    std::string name;    // its description's name, else the Halide target
    schedules::MachineModel machine;
    int cores = schedules::kAssumedCores;
    double distance = 0;
};

// Descriptions that state a machine model, resolved once per call.
std::vector<TargetDescription> described_machines() {
    std::vector<TargetDescription> described;
    for (const std::string &name : target_description_names()) {
        try {
            TargetDescription d = resolve_target(name);
            if (d.machine.source == "description") described.push_back(std::move(d));
        } catch (const CompileError &) {
            // A broken description is reported where it is used as a target, not here.
        }
    }
    return described;
}

SourceMachine source_machine(const std::string &record_target, const std::vector<TargetDescription> &described) {
    SourceMachine s;
    s.target = s.name = record_target;
    s.machine = schedules::instruction_set_machine_model(record_target);
    for (const TargetDescription &d : described)
        if (without_tuning(d.halide_target) == without_tuning(record_target)) {
            s.name = d.name;
            s.machine = d.machine;
            if (d.cores > 0) s.cores = d.cores;
            break;
        }
    return s;
}

}  // namespace

std::string without_tuning(const std::string &halide_target) {
    Halide::Target target(halide_target);
    target.processor_tune = Halide::Target::ProcessorGeneric;
    return target.to_string();
}

std::string transfer_level(const std::string &halide_target) {
    const auto has = [&](const char *feature) { return schedules::target_has_feature(halide_target, feature); };
    if (!gpu_api(halide_target).empty() || has("hvx")) return "";
    if (halide_target.rfind("x86-64-", 0) == 0)
        return has("avx512") ? "x86-avx512" : has("avx2") ? "x86-avx2" : "x86-sse";
    if (halide_target.rfind("arm-64-", 0) == 0) return "arm-64";
    return "";
}

void add_transferred_records(const std::vector<TuningDbFile> &files, const TargetDescription &target,
                             TuningChoices &choices, double farthest) {
    const schedules::TargetInfo info = resolve_plan_target(target.plan_target());
    const std::string level = transfer_level(info.halide_target);
    if (level.empty()) return;
    // Each other machine's records, from every database: the fastest current one of a signature wins.
    std::map<std::string, std::vector<const TuningRecord *>> by_target;
    for (const TuningDbFile &file : files)
        for (const TuningRecord &r : file.records)
            if (!r.target.empty() && !r.shape.empty() && r.family == info.family && r.target != info.halide_target &&
                transfer_level(r.target) == level)
                by_target[r.target].push_back(&r);
    if (by_target.empty()) return;
    const std::vector<TargetDescription> described = described_machines();
    std::vector<SourceMachine> sources;
    for (const auto &[record_target, records] : by_target) {
        SourceMachine s = source_machine(record_target, described);
        s.distance = schedules::machine_distance(info.model(), s.machine);
        if (s.distance <= farthest) sources.push_back(std::move(s));
    }
    std::sort(sources.begin(), sources.end(), [](const SourceMachine &a, const SourceMachine &b) {
        return a.distance != b.distance ? a.distance < b.distance : a.target < b.target;
    });
    for (const SourceMachine &source : sources) {
        TuningDbFile moved;
        std::set<std::string> fresh;  // signatures no nearer machine or exact record has
        for (const TuningRecord *r : by_target[source.target]) {
            TuningRecord m = *r;
            KernelInstance signed_here;
            signed_here.op = m.op, signed_here.shape = m.shape, signed_here.family = m.family;
            signed_here.target = m.target = info.halide_target;
            m.op_signature = signed_here.op_signature_hash();
            m.where = r->where + " (transferred from " + source.name + ")";
            if (!choices.records.count(m.op_signature)) fresh.insert(m.op_signature);
            moved.records.push_back(std::move(m));
        }
        add_tuning_records(moved, choices);
        int taken = 0;
        for (const std::string &signature : fresh) {
            const auto added = choices.records.find(signature);
            if (added == choices.records.end()) continue;  // only stale or rejected records
            added->second.exact = false;
            added->second.transferred_cores = source.cores;
            taken++;
        }
        if (taken > 0) choices.transfers.push_back({source.name, source.distance, taken});
    }
}

}  // namespace cortado
