#include <cstdio>
#include <iostream>

#include "frontend/layer_cost.h"
#include "frontend/load_network.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace cortado {
namespace {

std::string json_string(const std::string &text) {
    std::string out = "\"";
    for (unsigned char ch : text) {
        if (ch == '"' || ch == '\\') out += '\\', out += char(ch);
        else if (ch < 32) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", ch);
            out += esc;
        } else out += char(ch);
    }
    return out + "\"";
}

std::string json_shape(const Shape &s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); i++) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

}  // namespace

int command_info(const std::vector<std::string> &args) {
    const CliArgs cli = parse_cli_args(args, {"batch", "input-shape"}, {"json"});
    ImportOptions options;
    options.batch = cli.get_int("batch", 0);
    if (cli.has("input-shape")) options.input_shape = parse_shape(cli.get("input-shape"));
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
        std::cout << "{\n  \"name\": " << json_string(graph.name) << ",\n  \"inputs\": [";
        for (size_t i = 0; i < graph.inputs.size(); i++)
            std::cout << (i ? ", " : "") << "{\"blob\": " << json_string(graph.values[graph.inputs[i]].blob_name)
                      << ", \"shape\": " << json_shape(graph.values[graph.inputs[i]].shape) << "}";
        std::cout << "],\n  \"layers\": [\n";
        for (size_t l = 0; l < graph.layers.size(); l++) {
            const Layer &layer = graph.layers[l];
            std::cout << "    {\"name\": " << json_string(layer.name) << ", \"type\": "
                      << json_string(layer.type) << ", \"tops\": [";
            for (size_t t = 0; t < layer.outputs.size(); t++) {
                const Value &v = graph.values[layer.outputs[t]];
                std::cout << (t ? ", " : "") << "{\"blob\": " << json_string(v.blob_name)
                          << ", \"shape\": " << json_shape(v.shape) << "}";
            }
            std::cout << "], \"flops\": " << costs[l].flops << ", \"parameters\": " << costs[l].parameters
                      << ", \"bytes\": " << costs[l].bytes
                      << ", \"arithmetic_intensity\": " << costs[l].arithmetic_intensity() << "}"
                      << (l + 1 < graph.layers.size() ? "," : "") << "\n";
        }
        std::cout << "  ],\n  \"outputs\": [";
        for (size_t i = 0; i < graph.outputs.size(); i++)
            std::cout << (i ? ", " : "") << "{\"blob\": " << json_string(graph.values[graph.outputs[i]].blob_name)
                      << ", \"shape\": " << json_shape(graph.values[graph.outputs[i]].shape) << "}";
        std::cout << "],\n  \"total\": {\"flops\": " << total.flops << ", \"parameters\": " << total.parameters
                  << ", \"bytes\": " << total.bytes << "}\n}\n";
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
    for (int v : graph.outputs)
        std::printf("output '%s': %s\n", graph.values[v].blob_name.c_str(),
                    shape_to_string(graph.values[v].shape).c_str());
    return 0;
}

}  // namespace cortado
