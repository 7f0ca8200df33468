#include "tools/plan_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "compiler/target_features.h"
#include "ops/conv2d_fp16.h"
#include "ops/conv2d_int8.h"

namespace cortado {

namespace {

// "default rule" is the quiet case; every other source is named after the value.
std::string with_source(const std::string &text, const std::string &source) {
    return source == "default rule" ? text : text + " [" + source + "]";
}

// Launches per forward, the activation arena against the most floats live at once (each storage
// live from the first step that reads or writes one of its tensors to the last, the input from
// the start and the output to the end; tensors that share storage, as views or as slices of a
// concatenation written in place, count once, as far as they reach into it), and the packed
// weights.
std::string memory_line(const NetworkPlan &plan) {
    const int steps = int(plan.steps.size());
    std::map<int, std::pair<int, int>> span;  // per storage: its first and last step
    std::map<int, int64_t> reach;             // per storage: its floats
    const auto touch = [&](int tensor, int step) {
        const int storage = plan.tensors[size_t(tensor)].storage;
        const auto it = span.emplace(storage, std::pair<int, int>{step, step}).first;
        it->second.first = std::min(it->second.first, step), it->second.second = std::max(it->second.second, step);
    };
    touch(plan.input_tensor, 0);
    touch(plan.output_tensor, steps);
    int launches = 0;
    for (int s = 0; s < steps; s++) {
        const PlannedStep &step = plan.steps[size_t(s)];
        if (step.kernel >= 0) launches++;
        touch(step.output_tensor, s);
        for (const PlannedView &v : step.views)
            if (v.tensor >= 0) touch(v.tensor, s);
    }
    for (const PlannedTensor &tensor : plan.tensors) {
        int64_t &floats = reach[tensor.storage];
        floats = std::max(floats, tensor.offset - plan.tensors[size_t(tensor.storage)].offset + tensor_span(tensor));
    }
    int64_t bound = 0;
    for (int s = 0; s <= steps; s++) {
        int64_t at_once = 0;
        for (const auto &[storage, live] : span)
            if (live.first <= s && s <= live.second) at_once += reach[storage];
        bound = std::max(bound, at_once);
    }
    int64_t weights = 0;
    for (const PlannedParam &p : plan.params) weights += p.count;
    char line[256];
    std::snprintf(line, sizeof line,
                  "per forward: %d kernel launches; activations %.2f MB (the most live at once: %.2f MB); "
                  "packed weights %.2f MB\n",
                  launches, double(plan.arena_floats) * 4e-6, double(bound) * 4e-6, double(weights) * 4e-6);
    if (gpu_api(plan.target) == "cuda")
        return std::string(line) +
               "CUDA: from its second forward the network replays them as one CUDA graph (NAME_launch_mode; "
               "CORTADO_CUDA_GRAPHS=0 launches kernel by kernel)\n";
    return line;
}

}  // namespace

std::string plan_report(const NetworkPlan &plan, const std::string &target_name) {
    std::map<int, std::vector<std::string>> steps_of;  // kernel -> its steps
    for (const PlannedStep &s : plan.steps)
        if (s.kernel >= 0) steps_of[s.kernel].push_back(s.layer);
    std::ostringstream out;
    out << plan.name << ": " << plan.steps.size() << " steps, " << plan.kernels.size() << " kernels for target "
        << target_name << " (" << plan.target << "), schedule family " << plan.family
        << (plan.cores > 0 ? ", tasks cut for " + std::to_string(plan.cores) + " cores" : std::string()) << "\n"
        << (plan.cores > 0 ? "machine model: " + schedules::machine_model_text(plan.machine) + "\n" : std::string())
        << memory_line(plan);
    char line[512];
    std::snprintf(line, sizeof line, "%-28s %-15s %-16s %-16s %-20s %s\n", "step", "op", "kernel", "op signature",
                  "variant", "knobs");
    out << line;
    for (const PlannedStep &s : plan.steps) {
        if (s.kernel < 0) {
            std::snprintf(line, sizeof line, "%-28s %-15s %s\n", s.layer.c_str(), s.in_place ? "concat" : "alias",
                          s.in_place ? "(its inputs are written in their slices: no kernel)"
                                     : "(a view of its input: no kernel)");
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
            knobs +=
                "; reads " + ops::field_value(k.choice.layout_in) + ", writes " + ops::field_value(k.choice.layout_out);
        std::string shared;
        for (const std::string &other : steps_of[s.kernel])
            if (other != s.layer) shared += (shared.empty() ? "; shares its kernel with " : ", ") + other;
        if (s.over_residual) shared += "; writes over the residual it adds";
        for (const std::string &note : k.notes) shared += "; " + note;
        if (k.op == ops::Conv2dInt8Shape::kOp) {
            // The types change inside the step only (docs/precision.md).
            const auto shape = ops::parse_fields<ops::Conv2dInt8Shape>(k.shape);
            shared += "; int8: fp32 input quantized to u8 (scale " + ops::field_value(shape.input_scale) +
                      ", zero point " + std::to_string(shape.input_zero_point) + "), " +
                      (shape.weight_levels < ops::kInt8WeightLevels ? "7-bit weights (-64..64)" : "s8 weights") +
                      " per output channel, " +
                      (k.choice.form.is(ops::Algorithm::PairSums) ? "pairs of products summed in s16, then " : "") +
                      "s32 sums, fp32 output";
        }
        if (k.op == ops::Conv2dFp16Shape::kOp)
            shared += "; fp16: fp32 input and weights rounded to half, half products summed " +
                      std::string(k.choice.knobs.get("half") ? "in half" : "in fp32") + " over " +
                      std::to_string(k.choice.knobs.get("chunk")) + " input channels, then in fp32; fp32 output";
        std::snprintf(line, sizeof line, "%-28s %-15s %-16s %-16s %-20s ", s.layer.c_str(), k.op.c_str(),
                      k.function_name().substr(10).c_str(), k.op_signature_hash().c_str(),
                      with_source(k.choice.variant, k.variant_source).c_str());
        out << line << knobs << shared << "\n";
    }
    // Pairs a fused variant would run as one step (ops/conv2d_pool.h), kept apart by their choice.
    for (const UnfusedPair &pair : plan.unfused_pairs)
        out << pair.conv_step << " and " << pair.pool_step << ": not fused (conv2d_pool "
            << pair.choice.op_signature_hash() << ", "
            << with_source(pair.choice.choice.variant, pair.choice.variant_source)
            << "); a record or knob naming a fused variant runs them as one kernel\n";
    return out.str();
}

}  // namespace cortado
