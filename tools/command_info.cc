#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"
#include "compiler/tuning_db.h"
#include "frontend/compile_error.h"
#include "frontend/layer_cost.h"
#include "frontend/load_network.h"
#include "tools/cli_args.h"
#include "tools/cli_environment.h"
#include "tools/cli_precision.h"
#include "tools/cli_tuning.h"
#include "tools/commands.h"
#include "compiler/graph_json.h"
#include "tools/plan_report.h"

namespace cortado {

namespace {

// Prints "  N WHAT: a, b, c" (WHAT in the singular or plural form), wrapped at 100 columns with
// continuation lines indented; past 8 items the rest are counted rather than listed (GoogLeNet
// folds 57 ReLUs). Prints nothing for no items.
void print_list(const char *one, const char *many, const std::vector<std::string> &items) {
    if (items.empty()) return;
    constexpr size_t kListed = 8;
    const std::string indent(4, ' ');
    const size_t listed = std::min(items.size(), kListed);
    std::string text = "  " + std::to_string(items.size()) + " " + (items.size() == 1 ? one : many) + ": ";
    size_t column = text.size();
    for (size_t i = 0; i < listed; i++) {
        std::string item = items[i];
        if (i + 1 < listed) item += ",";
        if (i + 1 == listed && items.size() > kListed)
            item += " and " + std::to_string(items.size() - kListed) + " more";
        if (column + 1 + item.size() > 100 && column > indent.size()) {
            text += "\n" + indent;
            column = indent.size();
        } else if (i > 0) {
            text += " ";
            column++;
        }
        text += item;
        column += item.size();
    }
    std::printf("%s\n", text.c_str());
}

}  // namespace

int command_info(const std::vector<std::string> &args) {
    const CliArgs cli = parse_cli_args(args, {"batch", "input-shape", "target", "db", "precision", "qparams"}, {"json", "plan", "untuned", "no-transfer", "no-fusion"});
    ImportOptions options;
    options.batch = cli.get_count("batch", 0);
    if (cli.has("input-shape")) options.input_shape = parse_shape(cli.get("input-shape"));
    const TargetDescription target = resolve_target(cli.get("target", "host"));
    apply_cli_precision(cli, options, target);
    if (cli.flags.count("plan")) {
        if (cli.flags.count("json")) throw CompileError("info: --plan prints text; leave out --json");
        // The graph as compile plans it: fused, then the target's choices for every step.
        const Graph fused = load_network(cli.positional, options, !cli.flags.count("no-fusion"));
        const TuningChoices tuning = cli_tuning_choices(cli, target);
        const NetworkPlan plan = plan_network(fused, fused.name, target.plan_target(), cli_plan_options(tuning.records));
        report_tuning_notes(tuning, plan);
        std::cout << plan_report(plan, target.name);
        return 0;
    }
    if (cli.has("target") || cli.has("db") || cli.flags.count("untuned") || cli.flags.count("no-transfer") ||
        cli.flags.count("no-fusion"))
        throw UsageError("info: --target, --db, --untuned, --no-transfer and --no-fusion go with --plan");
    const Graph graph = load_network(cli.positional, options, false);

    LayerCost total;
    std::vector<LayerCost> costs;
    for (const Layer &layer : graph.layers) {
        costs.push_back(layer_cost(graph, layer));
        total.flops += costs.back().flops;
        total.parameters += costs.back().parameters;
        total.bytes += costs.back().bytes;
    }
    if (cli.flags.count("json")) {
        std::cout << graph_json_text(graph);
        return 0;
    }
    std::printf("%s: %zu layers\n", graph.name.c_str(), graph.layers.size());
    std::printf("%-28s %-13s %-18s %14s %12s %8s\n", "layer", "type", "top shape", "FLOPs", "params", "FLOP/B");
    for (size_t l = 0; l < graph.layers.size(); l++) {
        const Layer &layer = graph.layers[l];
        std::printf("%-28s %-13s %-18s %14lld %12lld %8.2f\n", layer.name.c_str(), layer.type.c_str(),
                    shape_to_string(graph.values[layer.outputs[0]].shape).c_str(),
                    static_cast<long long>(costs[l].flops), static_cast<long long>(costs[l].parameters),
                    costs[l].arithmetic_intensity());
    }
    std::printf("total: %.3f GFLOP, %lld parameters (%.1f MB)\n", total.flops / 1e9,
                static_cast<long long>(total.parameters), total.parameters * 4 / 1e6);
    // Why compile counts fewer steps than this table has layers.
    const Graph fused = load_network(cli.positional, options, true);
    const NetworkPlan plan = plan_network(fused, fused.name, resolve_target("host").plan_target(), cli_plan_options());
    std::vector<std::string> folded, views, in_place;
    for (const Layer &layer : fused.layers)
        for (const std::string &name : layer.fused_layers) folded.push_back(name + " into " + layer.name);
    for (const PlannedStep &step : plan.steps)
        if (step.kernel < 0) (step.in_place ? in_place : views).push_back(step.layer);
    std::printf("compile runs %zu step%s for %s %zu layer%s%s\n", plan.steps.size(), plan.steps.size() == 1 ? "" : "s",
                graph.layers.size() == 1 ? "this" : "these", graph.layers.size(), graph.layers.size() == 1 ? "" : "s",
                folded.empty() && views.empty() && in_place.empty() ? ", one kernel each" : ":");
    print_list("layer is folded into the layer before", "layers are folded into the layer before", folded);
    print_list("step is a view of its input, with no kernel", "steps are views of their inputs, with no kernel", views);
    print_list("concatenation has its inputs written in place, with no kernel",
               "concatenations have their inputs written in place, with no kernel", in_place);
    for (int v : graph.outputs)
        std::printf("output '%s': %s\n", graph.values[v].blob_name.c_str(),
                    shape_to_string(graph.values[v].shape).c_str());
    return 0;
}

}  // namespace cortado
