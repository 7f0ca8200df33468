#include "tools/bench/bench_gpu_prepare.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "compiler/graph_json.h"
#include "compiler/int8_support.h"
#include "compiler/json_text.h"
#include "compiler/network_builder.h"
#include "compiler/target_features.h"
#include "frontend/compile_error.h"
#include "frontend/fp16_precision.h"
#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/layer_cost.h"
#include "frontend/shape_inference.h"
#include "tools/bench/bench_cases.h"
#include "tools/bench/bench_networks.h"
#include "tools/bench/bench_report.h"
#include "tools/cli_environment.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

// Builds `graph` into FOLDER/libnet.so and removes everything else the build wrote there.
void build_library_alone(const Graph &graph, const TargetDescription &target, const fs::path &folder,
                         const BuildOptions &options) {
    link_shared_library(build_network(graph, "net", target, folder.string(), options), folder.string());
    for (const auto &entry : fs::directory_iterator(folder))
        if (entry.path().filename() != "libnet.so") fs::remove(entry.path());
}

// Builds `graph` into OUT/libnet.so with the tuning records, keeping only the library (and
// graph.json); where the records change some kernel, also without them into OUT/untuned/.
// Returns the case's JSON fields for the libraries.
nlohmann::ordered_json build_libraries(const Graph &graph, const TargetDescription &target, const fs::path &out,
                                       const std::string &case_name, const ChoiceOverrides &records) {
    const BuiltNetwork built = build_network(graph, "net", target, out.string(), cli_build_options(records));
    link_shared_library(built, out.string());
    nlohmann::ordered_json fields{{"library", case_name + "/libnet.so"}};
    if (uses_tuning_records(built.plan)) {
        build_library_alone(graph, target, out / "untuned", cli_build_options());
        fields["untuned_library"] = case_name + "/untuned/libnet.so";
    }
    for (const auto &entry : fs::directory_iterator(out))
        if (entry.is_regular_file() && entry.path().filename() != "libnet.so" &&
            entry.path().filename() != "graph.json")
            fs::remove(entry.path());
    return fields;
}

nlohmann::ordered_json build_case(const std::string &prototxt, const TargetDescription &target, const fs::path &dir,
                                  const std::string &case_name, const ChoiceOverrides &records) {
    Graph graph = import_caffe_prototxt_text(prototxt, case_name + ".prototxt", ImportOptions{});
    infer_shapes(graph);
    const fs::path out = dir / case_name;
    fs::remove_all(out);
    return build_libraries(graph, target, out, case_name, records);
}

}  // namespace

void prepare_gpu_bench(const std::string &suite, const std::string &csv, const std::string &models_dir,
                       const std::vector<int64_t> &batches, const std::vector<std::string> &net_names, bool quick,
                       bool with_overfeat, const TargetDescription &target, const std::string &dir,
                       const ChoiceOverrides &records, bool fp16, bool fuse) {
    if (fp16 && suite != "nets") throw CompileError("--precision fp16 --prepare: the nets suite only");
    if (!fuse && suite != "nets") throw CompileError("--no-fusion --prepare: the nets suite only");
    if (gpu_api(target.halide_target).empty())
        throw CompileError("--prepare needs a CUDA or OpenCL target, not " + target.halide_target);
    fs::create_directories(dir);
    nlohmann::ordered_json cases = nlohmann::ordered_json::array();
    size_t count = 0;
    // One case: its name, its libraries, its cost and what the runner needs to rebuild it.
    auto add = [&](const std::string &name, const nlohmann::ordered_json &libraries, double gflop, double megabytes,
                   const nlohmann::ordered_json &shape) {
        nlohmann::ordered_json entry{{"name", name}};
        entry.update(libraries);
        entry["gflop"] = gflop;
        entry["megabytes"] = megabytes;
        entry.update(shape);
        cases.push_back(entry);
        count++;
        std::cerr << "\rcortado: prepared " << count << " " << name << "          " << std::flush;
    };
    if (suite != "nets" && batches.size() > 1) throw CompileError("--batch: the " + suite + " suite takes one batch");
    if (suite == "conv") {
        for (const ConvShape &s : conv_set(csv, batches.empty() ? 0 : batches[0], quick, with_overfeat)) {
            const auto libraries = build_case(conv_prototxt(s), target, dir, "conv-" + std::to_string(count), records);
            const nlohmann::ordered_json shape{
                {"conv",
                 {s.batch, s.in_channels, s.in_h, s.in_w, s.out_channels, s.kernel_h, s.kernel_w, s.stride_h,
                  s.stride_w, s.pad_h, s.pad_w, s.out_h, s.out_w, s.group}}};
            add(conv_name(s), libraries, conv_gflop(s), conv_megabytes(s), shape);
        }
    } else if (suite == "sgemm") {
        for (int n : sgemm_sizes(quick)) {
            const auto libraries = build_case(sgemm_prototxt(n), target, dir, "sgemm-" + std::to_string(n), records);
            add("sgemm " + std::to_string(n), libraries, sgemm_gflop(n), sgemm_megabytes(n), {{"n", n}});
        }
    } else if (suite == "nets") {
        // Each network with its graph as JSON, for tools/bench/gpu_bench.py to rebuild it in PyTorch.
        for (const NetworkBenchCase &c : shipped_network_cases(models_dir, quick, batches, net_names)) {
            Graph graph = load_bench_network(c);
            if (fp16) apply_fp16_precision(graph, bench_network_name(c), fp16_refusal_for(target.plan_target()));
            const std::string case_name = "nets-" + std::to_string(count);
            const fs::path out = fs::path(dir) / case_name;
            fs::remove_all(out);
            fs::create_directories(out);
            std::ofstream(out / "graph.json") << graph_json_text(graph);
            Graph fused = graph;
            fuse_layers(fused);
            auto libraries = build_libraries(fused, target, out, case_name, records);
            if (!fuse) {  // the same graph, every layer its own step, timed beside the fused build
                build_library_alone(graph, target, out / "unfused", cli_build_options(records));
                libraries["unfused_library"] = case_name + "/unfused/libnet.so";
            }
            double gflop = 0;
            for (const Layer &layer : graph.layers) gflop += layer_cost(graph, layer).flops * 1e-9;
            nlohmann::ordered_json fields{{"graph", case_name + "/graph.json"}};
            if (fp16) fields["precision"] = "fp16";
            add(bench_network_name(c), libraries, gflop, 0, fields);
        }
    } else {
        throw CompileError("--prepare supports the conv, sgemm and nets suites, not '" + suite + "'");
    }
    std::cerr << "\n";
    std::ofstream json(fs::path(dir) / (suite + ".json"));
    nlohmann::ordered_json manifest = bench_json_header(suite, target);
    manifest["cases"] = cases;
    json << json_text(manifest) << "\n";
    if (!json.flush()) throw CompileError(dir + "/" + suite + ".json: cannot write");
    std::cout << "cortado: " << count << " " << suite << " cases for " << target.halide_target << " in " << dir << "\n";
}

}  // namespace cortado
