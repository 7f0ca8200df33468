// Comparing what `cortado run --output` wrote with a peer's output (onnxruntime's), both .npy
// files of floats.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "frontend/npy.h"

namespace cortado::testing {

// The file's floats and shape; a file that cannot be read fails the test.
inline std::vector<float> npy_floats(const std::string &path, std::vector<int64_t> *shape) {
    std::vector<float> data;
    std::string error;
    EXPECT_TRUE(read_npy(path, shape, &data, &error)) << error;
    return data;
}

// ||ours - theirs|| / ||theirs||; infinite when the sizes differ or the peer's output is all 0.
inline double relative_l2(const std::vector<float> &ours, const std::vector<float> &theirs) {
    if (ours.size() != theirs.size()) return std::numeric_limits<double>::infinity();
    double difference = 0, norm = 0;
    for (size_t i = 0; i < ours.size(); i++) {
        difference += (double(ours[i]) - theirs[i]) * (double(ours[i]) - theirs[i]);
        norm += double(theirs[i]) * theirs[i];
    }
    return norm > 0 ? std::sqrt(difference / norm) : std::numeric_limits<double>::infinity();
}

}  // namespace cortado::testing
