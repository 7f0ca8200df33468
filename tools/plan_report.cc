#include "tools/plan_report.h"

#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

namespace cortado {

namespace {

// "default rule" is the quiet case; every other source is named after the value.
std::string with_source(const std::string &text, const std::string &source) {
    return source == "default rule" ? text : text + " [" + source + "]";
}

}  // namespace

std::string plan_report(const NetworkPlan &plan, const std::string &target_name) {
    std::map<int, std::vector<std::string>> steps_of;  // kernel -> its steps
    for (const PlannedStep &s : plan.steps)
        if (s.kernel >= 0) steps_of[s.kernel].push_back(s.layer);
    std::ostringstream out;
    out << plan.name << ": " << plan.steps.size() << " steps, " << plan.kernels.size() << " kernels for target "
        << target_name << " (" << plan.target << "), schedule family " << plan.family << "\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-28s %-15s %-16s %-16s %-20s %s\n", "step", "op", "kernel", "op signature",
                  "variant", "knobs");
    out << line;
    for (const PlannedStep &s : plan.steps) {
        if (s.kernel < 0) {
            std::snprintf(line, sizeof line, "%-28s %-15s (a view of its input: no kernel)\n", s.layer.c_str(),
                          "alias");
            out << line;
            continue;
        }
        const KernelInstance &k = plan.kernels[s.kernel];
        std::string knobs;
        for (size_t i = 0; i < k.choice.knobs.values.size(); i++) {
            const auto &[name, value] = k.choice.knobs.values[i];
            knobs +=
                (knobs.empty() ? "" : " ") + with_source(name + "=" + std::to_string(value), k.knob_sources[i].second);
        }
        if (knobs.empty()) knobs = "-";
        // Channel-blocked tensors (kernel_plan.cc) are where a step's layouts leave NCHW.
        if (k.choice.layout_in.blocked() || k.choice.layout_out.blocked())
            knobs += "; reads " + ops::field_value(k.choice.layout_in) + ", writes " +
                     ops::field_value(k.choice.layout_out);
        std::string shared;
        for (const std::string &other : steps_of[s.kernel])
            if (other != s.layer) shared += (shared.empty() ? "; shares its kernel with " : ", ") + other;
        for (const std::string &note : k.notes) shared += "; " + note;
        std::snprintf(line, sizeof line, "%-28s %-15s %-16s %-16s %-20s ", s.layer.c_str(), k.op.c_str(),
                      k.function_name().substr(10).c_str(), k.op_signature_hash().c_str(),
                      with_source(k.choice.variant, k.variant_source).c_str());
        out << line << knobs << shared << "\n";
    }
    return out.str();
}

}  // namespace cortado
