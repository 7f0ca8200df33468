#include "tests/network_harness.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "frontend/fusion.h"
#include "frontend/shape_inference.h"
#include "tools/kernel_builder.h"
#include "tools/loaded_network.h"
#include "tools/network_builder.h"
#include "tools/temporary_directory.h"

namespace cortado::testing {
namespace fs = std::filesystem;

namespace {

BlobCheck check_graphs(Graph unfused, uint64_t seed) {
    Graph fused = unfused;
    fuse_activations(fused);
    const TemporaryDirectory scratch("cortado-test");
    const std::string &dir = scratch.path();
    const BuiltNetwork built = build_network(fused, "net", resolve_target(test_target()), dir, false);
    BlobCheck result;
    {
        LoadedNetwork net(link_shared_library(built, dir), "net");
        net.create(nullptr, seed);
        result = check_every_blob(unfused, built.plan, net, seed);
    }
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
