// NaN and infinities travel through every op as the double-precision reference says they do,
// whatever the ISA: Halide's fast float math would otherwise let each ISA decide (AVX-512 once
// turned LRN's NaN into 0). Each case in tests/non_finite/ runs at its own shape (full vectors
// and their tails) and at 1x2x4x4 (narrower than one vector), on the suites' target.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/network_harness.h"

namespace cortado::testing {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> case_files() {
    std::vector<std::string> files;
    for (const auto &entry : fs::directory_iterator(fs::path(CORTADO_SOURCE_DIR) / "tests" / "non_finite"))
        if (entry.path().extension() == ".prototxt") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(NonFinite, EveryOpGivesTheReferencesKindOfValueInEveryElement) {
    const std::vector<std::string> files = case_files();
    ASSERT_GE(files.size(), 20u) << "tests/non_finite/ lost its cases";
    const uint64_t seed = test_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", target " + test_target());
    ImportOptions narrow;
    narrow.input_shape = {1, 2, 4, 4};
    for (const std::string &file : files)
        for (const ImportOptions &options : {ImportOptions{}, narrow})
            EXPECT_EQ(check_non_finite_file(file, options, seed), "")
                << fs::path(file).filename().string() << (options.input_shape.empty() ? "" : " at 1x2x4x4");
}

}  // namespace
}  // namespace cortado::testing
