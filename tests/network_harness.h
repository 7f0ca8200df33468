// Compiles a graph for the host exactly as `cortado compile` does, loads the library, runs it
// on seeded weights and random input, and compares every blob the network writes with the
// double-precision reference interpreter.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "compiler/reference/blob_check.h"
#include "frontend/graph.h"
#include "frontend/import_caffe.h"

namespace cortado::testing {

// `prototxt` is the network text; `display` names it in errors.
BlobCheck check_network_text(const std::string &prototxt, const std::string &display, const ImportOptions &options,
                             uint64_t seed);
BlobCheck check_network_file(const std::string &path, const ImportOptions &options, uint64_t seed);

// Compiles the network as check_network_file does, then runs check_non_finite on it (cross
// targets in $CORTADO_TEST_CHECKER): "" when every output element has the reference's kind.
std::string check_non_finite_file(const std::string &path, const ImportOptions &options, uint64_t seed);

// The relative L2 difference between the reference's output of `prototxt` as imported and after
// `mark` (a precision pass) on seeded N(0, weight_std) weights and uniform(-1, 1) input: what a
// kernel that ignored the marked precision would be off by.
double precision_effect(const std::string &prototxt, const std::function<void(Graph &)> &mark, uint64_t seed,
                        double weight_std);

// The target the tests compile for: $CORTADO_TEST_TARGET (a targets/ name or a Halide target
// string), else "host". The same suites run on every target that can run here.
std::string test_target();

// Whether the test target's schedule family offers an int8 convolution (docs/precision.md); the
// others must refuse one, naming the layer.
bool int8_test_target();

// The seed for random tests: $CORTADO_TEST_SEED when set, else fresh; printed by the caller.
uint64_t test_seed();

// ../shared beside the checkout, or "" when absent.
std::string shared_models_dir();

}  // namespace cortado::testing
