// What the frontend needs to know about a Halide target string without linking Halide.
#pragma once

#include <string>

namespace cortado {

// "cuda", "opencl", or "" for CPU targets.
inline std::string gpu_api(const std::string &halide_target) {
    const std::string padded = "-" + halide_target + "-";
    if (padded.find("-cuda-") != std::string::npos) return "cuda";
    if (padded.find("-opencl-") != std::string::npos) return "opencl";
    return "";
}

}  // namespace cortado
