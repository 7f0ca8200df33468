#include <cctype>
#include <filesystem>
#include <iostream>
#include <optional>

#include "compiler/network_builder.h"
#include "compiler/network_weights.h"
#include "compiler/tuning_db.h"
#include "frontend/caffemodel_writer.h"
#include "frontend/compile_error.h"
#include "frontend/load_network.h"
#include "tools/cli_args.h"
#include "tools/cli_environment.h"
#include "tools/cli_precision.h"
#include "tools/cli_tuning.h"
#include "tools/commands.h"

namespace cortado {

std::string default_network_name(const std::string &graph_name) {
    std::string name;
    for (unsigned char ch : graph_name) name += std::isalnum(ch) ? char(std::tolower(ch)) : '_';
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "net_" + name;
    return name;
}

int command_compile(const std::vector<std::string> &args) {
    const CliArgs cli = parse_cli_args(args, {"output-dir", "target", "batch", "name", "input-shape", "db", "weights", "precision", "qparams"},
                                       {"shared", "untuned", "no-transfer", "embed-weights", "no-fusion"});
    if (!cli.has("output-dir")) throw UsageError("compile needs -o DIR");
    const bool embed = cli.flags.count("embed-weights") > 0;
    if (cli.has("weights") && !embed)
        throw UsageError(
            "compile reads --weights only to embed them: add --embed-weights (or pass the file to NAME_create)");
    if (std::filesystem::exists(cli.get("output-dir")) && !std::filesystem::is_directory(cli.get("output-dir")))
        throw CompileError("-o " + cli.get("output-dir") + ": is a file; -o names the folder to write into");
    ImportOptions options;
    options.batch = cli.get_count("batch", 0);
    if (cli.has("input-shape")) options.input_shape = parse_shape(cli.get("input-shape"));
    const TargetDescription target = resolve_target(cli.get("target", "host"));
    apply_cli_precision(cli, options, target);
    const Graph graph = load_network(cli.positional, options, !cli.flags.count("no-fusion"));
    const std::string name = cli.get("name", default_network_name(graph.name));
    const TuningChoices tuning = cli_tuning_choices(cli, target);
    std::string weights;
    if (graph.weights) {
        if (cli.has("weights")) throw UsageError("an ONNX model carries its weights; --weights is for prototxts");
        // An ONNX model's initializers, for NAME_create(): the runtime reads caffemodels.
        std::filesystem::create_directories(cli.get("output-dir"));
        weights = (std::filesystem::path(cli.get("output-dir")) / (name + ".caffemodel")).string();
        write_caffemodel(weights, graph.name, *graph.weights);
    }
    std::string embedded;
    if (embed) {
        if (!graph.weights && !cli.has("weights"))
            throw UsageError("--embed-weights needs --weights W.caffemodel (or an ONNX model, which carries them)");
        embedded = std::filesystem::absolute(graph.weights ? weights : cli.get("weights")).string();
        read_weights(graph, embedded);  // every layer's blobs there, in its shapes, or an error naming it
    }
    BuildOptions build = cli_build_options(tuning.records, true);
    build.embedded_weights = embedded;
    // NAME_forward_batch below the compiled batch runs the network compiled at batch 1.
    std::optional<Graph> single_image;
    if (graph.values[graph.inputs[0]].shape[0] > 1) {
        ImportOptions one_image = options;
        one_image.batch = 1;
        if (!one_image.input_shape.empty()) one_image.input_shape[0] = 1;
        single_image = load_network(cli.positional, one_image, !cli.flags.count("no-fusion"));
        build.single_image = &*single_image;
    }
    const BuiltNetwork built = build_network(graph, name, target, cli.get("output-dir"), build);
    report_tuning_notes(tuning, built.plan);
    if (cli.flags.count("shared")) std::cout << "  " << link_shared_library(built, cli.get("output-dir")) << "\n";
    std::cout << "cortado: " << built.plan.steps.size() << " layers, " << built.plan.kernels.size()
              << " distinct kernels, " << built.plan.arena_floats * 4 / 1024 << " KiB of activations, target "
              << target.halide_target << "\n"
              << "  " << built.header << "\n  " << built.library << "\n";
    if (!embedded.empty())
        std::cout << "  weights from " << embedded << " embedded: " << name << "_create_embedded() loads them\n";
    else if (!weights.empty())
        std::cout << "  " << weights << "  (the model's weights: pass it to " << name << "_create)\n";
    return 0;
}

}  // namespace cortado
