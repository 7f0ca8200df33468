#include "runtime/cuda_register_cap.h"

#include <cstdlib>
#include <mutex>
#include <string>

#include "runtime/runtime_environment.h"

namespace cortado {

void raise_cuda_register_cap(int registers) {
    static std::mutex mutex;  // orders this library's own calls; see the header for the rest
    if (registers <= 0) return;
    std::lock_guard<std::mutex> lock(mutex);
    if (set_by_user("HL_CUDA_JIT_MAX_REGISTERS", "CORTADO_CUDA_JIT_MAX_REGISTERS")) return;
    const char *cap = std::getenv("HL_CUDA_JIT_MAX_REGISTERS");
    if (cap != nullptr && std::atoi(cap) >= registers) return;
    set_ours("HL_CUDA_JIT_MAX_REGISTERS", "CORTADO_CUDA_JIT_MAX_REGISTERS", std::to_string(registers).c_str());
}

}  // namespace cortado
