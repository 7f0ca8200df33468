// `cortado tune`: the command line of the tuner (compiler/tuner/tuner.h): which layers, which
// runner (measuring here, or bundles for another machine with --prepare), the budget, and what
// it tells people while it runs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

#include "compiler/install_layout.h"
#include "compiler/tuner/bundles.h"
#include "compiler/tuner/local_runner.h"
#include "compiler/tuner/restamp.h"
#include "compiler/tuner/stop_signals.h"
#include "compiler/tuner/tuner.h"
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
#include "tools/cli_precision.h"
#include "tools/cli_environment.h"
#include "tools/commands.h"
#include "tools/tune_report.h"

namespace cortado {

namespace {

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

std::vector<NamedGraph> graphs_to_tune(const CliArgs &cli, const TargetDescription &target) {
    std::vector<NamedGraph> graphs;
    const std::vector<int64_t> batches = batch_list(cli);
    if (!cli.has("suite")) {
        for (int64_t batch : batches) {
            ImportOptions options;
            options.batch = batch;
            if (cli.has("input-shape")) options.input_shape = parse_shape(cli.get("input-shape"));
            apply_cli_precision(cli, options, target);
            // Activations fused, affines not folded: a layer's reference (compiler/tuner) runs the
            // layer alone and knows no folded affine. Records go by op signature, which a fold
            // leaves as it is, so they apply to the folded layers that compile plans.
            Graph graph = load_network(cli.positional, options, false);
            fuse_activations(graph);
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
                        "max-tolerance", "suite", "set", "models", "prepare", "import", "restamp", "precision", "qparams"},
                       {"quick"}, !no_network);
    if (cli.has("suite") && (cli.has("qparams") || cli.has("precision")))
        throw UsageError("tune: --precision and --qparams go with a network, not --suite");
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
                               "; for another machine: --prepare DIR, run tune_bundle_runner there, then --import");
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

    const std::vector<NamedGraph> graphs = graphs_to_tune(cli, target);
    const PlanOptions plan_options = cli_plan_options();
    std::vector<TuneLayer> layers;
    std::vector<std::string> skipped;
    for (const NamedGraph &g : graphs) {
        const NetworkPlan plan = plan_network(g.fused, "net", target.plan_target(), plan_options);
        // The layouts compile gives each layer come from the fully fused network.
        Graph compiled_graph = g.fused;
        fuse_layers(compiled_graph);
        const NetworkPlan compiled = plan_network(compiled_graph, "net", target.plan_target(), plan_options);
        for (TuneLayer &layer : tune_layers(g.fused, plan, &skipped, &compiled)) {
            for (std::string &s : layer.steps) s = g.name + s;
            const auto same = std::find_if(layers.begin(), layers.end(),
                                           [&](const TuneLayer &l) { return l.signature == layer.signature; });
            if (same == layers.end()) layers.push_back(std::move(layer));
            else same->steps.insert(same->steps.end(), layer.steps.begin(), layer.steps.end());
        }
    }
    for (const std::string &s : skipped) std::cerr << "cortado: note: not tuned: " << s << "\n";

    // Ctrl-C, a kill and a closed terminal stop the tuner the same way: the candidates under way
    // end, nothing is recorded for them, and the children are reaped before it exits.
    const StopSignals stop_signals;
    TunerOptions options;
    options.db = db;
    options.target = target.plan_target();
    options.plan = plan_options;
    // Another machine's record, at any distance, is worth one measurement (record_transfer.h).
    for (const auto &[signature, settings] :
         load_tuning_choices("", false, &target, std::numeric_limits<double>::infinity()).records)
        if (settings.transferred_cores > 0) options.seeds[signature] = settings;
    options.jobs = jobs;
    options.max_candidates = max_candidates;
    options.max_tolerance = max_tolerance;
    options.seed = uint64_t(cli.get_int("seed", 1));
    options.stop = &StopSignals::requested;
    options.progress = print_progress;
    if (cli.has("prepare")) {
        const std::string dir = cli.get("prepare");
        BundleRunner runner(target, plan_options, options.seed, dir, options.stop);
        Tuner tuner(runner, options);
        for (TuneLayer &layer : layers) tuner.add(std::move(layer));
        const PrepareSummary summary = tuner.prepare(int(cli.get_count("max-candidates", 8)));
        const std::vector<std::string> written = runner.finish();
        std::cout << "cortado tune: " << summary.built << " candidates for " << tuner.size() << " op signatures on "
                  << target.halide_target << " in " << written.size() << " bundles under " << dir << " ("
                  << summary.measured_before << " choices already measured in " << db << ", " << summary.rejected
                  << " rejected here: they do not compile)\n"
                  << "on the other machine, for each bundle: tune_bundle_runner BUNDLE OUT.jsonl [--devices N]\n"
                  << "then here: cortado tune --import OUT.jsonl --db " << db << "\n";
        return tuner.stopped_by_user() ? 130 : 0;
    }
    LocalRunner runner(target, plan_options, options.seed, options.stop);
    Tuner tuner(runner, options);
    for (TuneLayer &layer : layers) tuner.add(std::move(layer));
    std::cout << "cortado tune: " << tuner.size() << " op signatures on " << target.name << " (" << target.halide_target
              << "), budget " << minutes << " min, " << jobs << " compile jobs, database " << db << "\n";
    tuner.run(minutes * 60);
    if (tuner.resumed())
        std::cout << "resumed: " << tuner.resumed() << " candidates measured by earlier runs were not run again\n";
    std::cout << tune_summary_table(tuner.summary());
    const double spent = std::chrono::duration<double>(Clock::now() - started).count();
    std::printf("%s after %.0f s of a %.0f s budget; records in %s\n",
                tuner.stopped_by_user() ? "interrupted" : "finished", spent, minutes * 60, db.c_str());
    if (tuner.stopped_by_user()) {
        std::cout << "every measured candidate is kept: run the same command again to resume\n";
        return 130;
    }
    return 0;
}

}  // namespace cortado
