// Replays every committed fuzzer input (tests/fuzz/regressions/<target>/) through the same entry
// points the fuzzers drive: each once crashed, hung or tripped a sanitizer, or is a hand-made
// hostile case. Passing means: no crash, and bad input ended in a clean error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include "tests/fuzz/fuzz_targets.h"

namespace cortado::fuzz {
namespace {
namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryCommittedInputIsHandledCleanly) {
    const std::map<std::string, std::function<void(const uint8_t *, size_t)>> targets = {
        {"prototxt", prototxt_one_input},
        {"onnx", onnx_one_input},
        {"caffemodel", caffemodel_one_input},
        {"npy", npy_one_input},
        {"qparams", qparams_one_input}};
    int replayed = 0;
    for (const auto &[name, one_input] : targets) {
        const fs::path dir = fs::path(CORTADO_SOURCE_DIR) / "tests/fuzz/regressions" / name;
        for (const auto &entry : fs::directory_iterator(dir)) {
            std::ifstream file(entry.path(), std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            SCOPED_TRACE(entry.path().string());
            one_input(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
            replayed++;
        }
    }
    EXPECT_GT(replayed, 0);
}

}  // namespace
}  // namespace cortado::fuzz
