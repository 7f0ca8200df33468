#include "tests/network_harness.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "frontend/fusion.h"
#include "frontend/shape_inference.h"
#include "tests/reference/reference_interpreter.h"
#include "tools/kernel_builder.h"
#include "tools/loaded_network.h"
#include "tools/network_builder.h"
#include "tools/network_weights.h"

namespace cortado::testing {
namespace fs = std::filesystem;

namespace {

struct Capture {
    const NetworkPlan *plan;
    const std::vector<reference::Tensor> *expected;
    int call = 0;  // 0: the input; i + 1: step i
    BlobCheck result;
};

void compare_blob(void *user, const char *blob, int, const int64_t *, const float *data) {
    auto *c = static_cast<Capture *>(user);
    const int tensor = c->call == 0 ? c->plan->input_tensor : c->plan->steps[c->call - 1].output_tensor;
    c->call++;
    const int value = c->plan->tensors[tensor].value;
    const double error = reference::relative_l2_error(data, (*c->expected)[value]);
    c->result.blobs_checked++;
    if (!(error <= c->result.worst_error)) {  // NaN-safe: a NaN error always becomes the worst
        c->result.worst_error = error;
        c->result.worst_blob = blob;
    }
}

BlobCheck check_graphs(Graph unfused, uint64_t seed) {
    Graph fused = unfused;
    fuse_activations(fused);
    const std::string dir = (fs::temp_directory_path() /
                             ("cortado-test-" + std::to_string(seed) + "-" +
                              std::to_string(std::chrono::steady_clock::now().time_since_epoch().count())))
                                .string();
    const BuiltNetwork built = build_network(fused, "net", resolve_target(test_target()), dir, false);
    BlobCheck result;
    {
        LoadedNetwork net(link_shared_library(built, dir), "net");
        net.create(nullptr, seed);

        const Shape &in_shape = unfused.values[unfused.inputs[0]].shape;
        std::vector<float> input(static_cast<size_t>(element_count(in_shape)));
        std::mt19937_64 random(seed);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        for (float &v : input) v = uniform(random);
        const auto expected = reference::run_graph(
            unfused, reference_weights(seeded_weights(built.plan, seed)),
            {reference::Tensor{in_shape, std::vector<double>(input.begin(), input.end())}});

        Capture capture{&built.plan, &expected};
        net.set_blob_callback(compare_blob, &capture);
        std::vector<float> output(static_cast<size_t>(element_count(fused.values[fused.outputs[0]].shape)),
                                  std::nanf(""));
        net.forward(input.data(), output.data());
        result = capture.result;
        const double out_error = reference::relative_l2_error(output.data(), expected[unfused.outputs[0]]);
        if (!(out_error <= result.worst_error)) {
            result.worst_error = out_error;
            result.worst_blob = "(returned output)";
        }
    }
    fs::remove_all(dir);
    return result;
}

}  // namespace

BlobCheck check_network_text(const std::string &prototxt, const std::string &display,
                             const ImportOptions &options, uint64_t seed) {
    Graph graph = import_caffe_prototxt_text(prototxt, display, options);
    infer_shapes(graph);
    return check_graphs(std::move(graph), seed);
}

BlobCheck check_network_file(const std::string &path, const ImportOptions &options, uint64_t seed) {
    Graph graph = import_caffe_prototxt(path, options);
    infer_shapes(graph);
    return check_graphs(std::move(graph), seed);
}

std::string test_target() {
    const char *target = std::getenv("CORTADO_TEST_TARGET");
    return target && *target ? target : "host";
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
