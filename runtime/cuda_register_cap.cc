#include "runtime/cuda_register_cap.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace cortado {

void raise_cuda_register_cap(int registers) {
    static std::mutex mutex;  // orders this library's own calls; see the header for the rest
    if (registers <= 0) return;
    std::lock_guard<std::mutex> lock(mutex);
    const char *cap = std::getenv("HL_CUDA_JIT_MAX_REGISTERS");
    const char *ours = std::getenv("CORTADO_CUDA_JIT_MAX_REGISTERS");
    if (cap != nullptr && (ours == nullptr || std::strcmp(cap, ours) != 0)) return;  // the user's
    if (cap != nullptr && std::atoi(cap) >= registers) return;
    const std::string value = std::to_string(registers);
    ::setenv("CORTADO_CUDA_JIT_MAX_REGISTERS", value.c_str(), 1);
    ::setenv("HL_CUDA_JIT_MAX_REGISTERS", value.c_str(), 1);
}

}  // namespace cortado
