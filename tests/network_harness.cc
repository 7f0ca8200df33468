#include "tests/network_harness.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <stdexcept>

#include <gtest/gtest.h>

#include "compiler/loaded_network.h"
#include "compiler/network_builder.h"
#include "compiler/plan_target.h"
#include "compiler/qparams.h"
#include "compiler/record_transfer.h"
#include "compiler/reference/reference_interpreter.h"
#include "compiler/shell_quote.h"
#include "compiler/temporary_directory.h"
#include "compiler/toolchain.h"
#include "frontend/fp16_precision.h"
#include "frontend/fusion.h"
#include "frontend/int8_precision.h"
#include "frontend/load_network.h"
#include "frontend/shape_inference.h"
#include "frontend/untrained_fillers.h"
#include "schedules/families.h"
#include "tests/scoped_knobs.h"

namespace cortado::testing {
namespace fs = std::filesystem;

namespace {

struct CompiledForTest {
    TargetDescription target;
    BuiltNetwork built;
    std::string library;
};

// Compiles `unfused` for the suites' target exactly as `cortado compile` does, into `dir`.
CompiledForTest compile_for_test(const Graph &unfused, const std::string &dir) {
    Graph fused = unfused;
    fuse_layers(fused);
    CompiledForTest compiled{resolve_target(test_target()), {}, {}};
    compiled.built = build_network(fused, "net", compiled.target, dir, BuildOptions(test_plan_options()));
    compiled.library = link_shared_library(compiled.built, dir);
    return compiled;
}

// Cross targets: the library cannot be loaded here, so the libHalide-free checker built for
// the target runs it under $CORTADO_TEST_CHECKER (e.g. "qemu-aarch64 .../prebuilt_network_check")
// and prints the same comparison; "" when the variable is unset.
std::string checker() {
    const char *command = std::getenv("CORTADO_TEST_CHECKER");
    return command ? command : "";
}

struct CheckerRun {
    std::string command, output;  // output: stdout and stderr together
    int status;
};

// Runs the checker on the library compiled from `prototxt_path`, with `mode` ("" or
// "--non-finite").
CheckerRun run_checker(const std::string &prototxt_path, const ImportOptions &options, const CompiledForTest &compiled,
                       uint64_t seed, const std::string &mode) {
    CheckerRun run;
    run.command = checker() + " " + shell_quote(prototxt_path) + " " + shell_quote(compiled.library) + " " +
                  shell_quote(compiled.target.halide_target) + " --seed " + std::to_string(seed) + " --iterations 0 " +
                  mode;
    if (options.batch > 0) run.command += " --batch " + std::to_string(options.batch);
    // The checker plans the network again: with the options the library was compiled with.
    if (!test_plan_options().knobs.empty()) run.command += " --knobs " + shell_quote(test_plan_options().knobs);
    if (test_plan_options().layouts == ActivationLayouts::Nchw) run.command += " --layouts nchw";
    if (!options.int8_layers.empty()) {
        QuantizationParams q;
        for (const auto &[layer, quantization] : options.int8_layers) q.layers[layer].quantization = quantization;
        const std::string path = std::filesystem::path(compiled.library).parent_path().string() + "/net.qparams";
        write_qparams(q, path);
        run.command +=
            " --qparams " + shell_quote(path) + " --weight-levels " + std::to_string(options.int8_weight_levels);
    }
    if (options.fp16) run.command += " --precision fp16";
    if (!options.input_shape.empty()) {
        std::string shape;
        for (int64_t d : options.input_shape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
        run.command += " --input-shape " + shape;
    }
    FILE *pipe = ::popen((run.command + " 2>&1").c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot start: " + run.command);
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) run.output.append(buffer, n);
    run.status = ::pclose(pipe);
    return run;
}

// A checker that printed PASS and then failed anyway (a crash at exit, a sanitizer report) must
// not pass.
[[noreturn]] void checker_failed(const CheckerRun &run, const std::string &what) {
    throw std::runtime_error("checker " + what + " (exit status " + std::to_string(run.status) + "):\n$ " +
                             run.command + "\n" + run.output);
}

int blocked_tensors(const NetworkPlan &plan) {
    int count = 0;
    for (const PlannedTensor &t : plan.tensors) count += t.channel_block > 0;
    return count;
}

int sums_over_residuals(const NetworkPlan &plan) {
    int count = 0;
    for (const PlannedStep &s : plan.steps) count += s.over_residual;
    return count;
}

BlobCheck check_graphs(Graph unfused, uint64_t seed, const std::string &prototxt_path, const ImportOptions &options) {
    const TemporaryDirectory scratch("cortado-test");
    const CompiledForTest compiled = compile_for_test(unfused, scratch.path());
    if (!checker().empty()) {
        static const std::regex result_line(
            R"(check \S+ \S+: (\d+) blobs \((\d+) all zero\), worst relative L2 error (\S+) \(([^)]*)\), tolerance (\S+): (PASS|FAIL))");
        const CheckerRun run = run_checker(prototxt_path, options, compiled, seed, "");
        std::smatch match;
        if (!std::regex_search(run.output, match, result_line)) checker_failed(run, "gave no result");
        if (match[6] == "PASS" && run.status != 0) checker_failed(run, "passed, then failed");
        BlobCheck result;
        result.blobs_checked = std::stoi(match[1]);
        result.all_zero_blobs = std::stoi(match[2]);
        result.worst_error = std::strtod(match[3].str().c_str(), nullptr);  // "nan" parses as NaN
        result.worst_blob = match[4];
        result.tolerance = std::strtod(match[5].str().c_str(), nullptr);
        result.blocked_tensors = blocked_tensors(compiled.built.plan);
        result.sums_over_residuals = sums_over_residuals(compiled.built.plan);
        return result;
    }
    LoadedNetwork net(compiled.library, "net");
    net.create(nullptr, seed);
    BlobCheck result = check_every_blob(unfused, compiled.built.plan, net, seed);
    result.blocked_tensors = blocked_tensors(compiled.built.plan);
    result.sums_over_residuals = sums_over_residuals(compiled.built.plan);
    return result;
}

Graph graph_with_fillers(const std::string &path, const ImportOptions &options) {
    Graph graph = load_network(path, options, false);
    fill_untrained_weights(graph);
    return graph;
}

// Suites run for a CPU target this machine cannot execute (CORTADO_TEST_TARGET=x86-64-avx512 on
// an AVX2-only CPU) skip every test, saying why, instead of dying of an illegal instruction.
// Cross targets run their code in the checker (under qemu), not here.
class TargetRunsHere : public ::testing::Environment {
  public:
    void SetUp() override {
        if (!checker().empty()) return;
        std::string why;
        try {
            why = why_cannot_run_here(resolve_target(test_target()).halide_target);
        } catch (const std::exception &) {
            return;  // an unknown target fails each test with its own message
        }
        if (!why.empty()) GTEST_SKIP() << "suite for " << test_target() << " skipped: " << why;
        if (std::getenv("CORTADO_TEST_UNLESS_HOST_ISA") && same_instruction_set_as_host(test_target()))
            GTEST_SKIP() << "suite for " << test_target()
                         << " skipped: the host's suites ran this instruction set (the host target differs only in "
                            "its tuning)";
    }

  private:
    // Targets equal but for the host's tune_ processor: their kernels are the same code.
    static bool same_instruction_set_as_host(const std::string &target) {
        return without_tuning(resolve_target("host").halide_target) ==
               without_tuning(resolve_target(target).halide_target);
    }
};
[[maybe_unused]] ::testing::Environment *const target_runs_here =
    ::testing::AddGlobalTestEnvironment(new TargetRunsHere);

}  // namespace

BlobCheck check_network_text(const std::string &prototxt, const std::string &display, const ImportOptions &options,
                             uint64_t seed) {
    Graph graph = import_caffe_prototxt_text(prototxt, display, options);
    infer_shapes(graph);
    if (!options.int8_layers.empty())
        apply_int8_precision(graph, options.int8_layers, options.int8_source, options.int8_weight_levels);
    if (options.fp16) apply_fp16_precision(graph, display, options.fp16_refusal);
    fill_untrained_weights(graph);
    const TemporaryDirectory scratch("cortado-test-net");
    const std::string path = scratch.path() + "/net.prototxt";
    std::ofstream(path) << prototxt;
    return check_graphs(std::move(graph), seed, path, options);
}

BlobCheck check_network_file(const std::string &path, const ImportOptions &options, uint64_t seed) {
    return check_graphs(graph_with_fillers(path, options), seed, path, options);
}

std::string check_non_finite_file(const std::string &path, const ImportOptions &options, uint64_t seed) {
    const Graph unfused = graph_with_fillers(path, options);
    const TemporaryDirectory scratch("cortado-test");
    const CompiledForTest compiled = compile_for_test(unfused, scratch.path());
    if (!checker().empty()) {
        const CheckerRun run = run_checker(path, options, compiled, seed, "--non-finite");
        const size_t at = run.output.find("non-finite check ");
        if (at == std::string::npos) checker_failed(run, "gave no result");
        const std::string line = run.output.substr(at, run.output.find('\n', at) - at);
        if (line.size() < 6 || line.compare(line.size() - 6, 6, ": PASS") != 0) return run.output.substr(at);
        if (run.status != 0) checker_failed(run, "passed, then failed");
        return "";
    }
    LoadedNetwork net(compiled.library, "net");
    net.create(nullptr, seed);
    return check_non_finite(unfused, compiled.built.plan, net, seed);
}

double precision_effect(const std::string &prototxt, const std::function<void(Graph &)> &mark, uint64_t seed,
                        double weight_std) {
    Graph plain = import_caffe_prototxt_text(prototxt, "precision", ImportOptions{});
    infer_shapes(plain);
    Graph marked = plain;
    mark(marked);
    reference::WeightMap weights;
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0.0, weight_std);
    for (const Layer &layer : plain.layers)
        for (const Shape &shape : layer.weight_shapes) {
            reference::Tensor t{shape, std::vector<double>(size_t(element_count(shape)))};
            for (double &v : t.data) v = normal(random);
            weights[layer.name].push_back(t);
        }
    const Shape &in_shape = plain.values[size_t(plain.inputs[0])].shape;
    reference::Tensor input{in_shape, std::vector<double>(size_t(element_count(in_shape)))};
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (double &v : input.data) v = uniform(random);
    const int out = plain.outputs[0];
    const reference::Tensor a = reference::run_graph(plain, weights, {input})[size_t(out)];
    const reference::Tensor b = reference::run_graph(marked, weights, {input})[size_t(out)];
    const std::vector<float> b_float(b.data.begin(), b.data.end());
    return reference::relative_l2_error(b_float.data(), a);
}

std::string test_target() {
    const char *target = std::getenv("CORTADO_TEST_TARGET");
    return target && *target ? target : "host";
}

bool int8_test_target() {
    const std::string family = resolve_plan_target(resolve_target(test_target()).plan_target()).family;
    return !schedules::families().at(family).op<ops::Conv2dInt8Shape>().variants.empty();
}

uint64_t test_seed() {
    if (const char *s = std::getenv("CORTADO_TEST_SEED")) return std::strtoull(s, nullptr, 10);
    return static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007ull;
}

std::string shared_models_dir() {
    for (const char *candidate : {CORTADO_SOURCE_DIR "/../shared/models", "../shared/models"})
        if (fs::exists(fs::path(candidate) / "alexnet.prototxt")) return fs::canonical(candidate).string();
    return "";
}

}  // namespace cortado::testing
