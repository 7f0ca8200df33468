// NaN and infinities travel through every op as the double-precision reference says they do,
// whatever the ISA, since Halide's fast float math would otherwise let each ISA decide. Each case
// in tests/non_finite/ (a prototxt, or an ONNX model of an op no Caffe layer has) runs at its own shape (full vectors and their tails) and at 1x2x4x4
// (narrower than one vector), on the suites' target.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "tests/network_harness.h"

namespace cortado::testing {
namespace {
namespace fs = std::filesystem;

const fs::path kCases = fs::path(CORTADO_SOURCE_DIR) / "tests" / "non_finite";

std::vector<std::string> case_names() {
    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(kCases))
        if (entry.path().extension() == ".prototxt" || entry.path().extension() == ".onnx")
            names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

class NonFinite : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(NonFinite, EveryOutputElementHasTheReferencesKindOfValue) {
    const auto &[name, narrow] = GetParam();
    const std::string path = (kCases / name).string();
    ImportOptions options;
    if (narrow) options.input_shape = {1, 2, 4, 4};
    const uint64_t seed = test_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", target " + test_target());
    EXPECT_EQ(check_non_finite_file(path, options, seed), "");
}

INSTANTIATE_TEST_SUITE_P(Cases, NonFinite, ::testing::Combine(::testing::ValuesIn(case_names()), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<NonFinite::ParamType> &info) {
                             std::string name = std::get<0>(info.param);
                             for (char &c : name)
                                 if (c == '.') c = '_';
                             return name + (std::get<1>(info.param) ? "_1x2x4x4" : "");
                         });

TEST(NonFiniteCases, TheCaseFolderIsNotEmpty) { EXPECT_FALSE(case_names().empty()); }

}  // namespace
}  // namespace cortado::testing
