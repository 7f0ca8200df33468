#include "runtime/cuda_register_cap.h"

#include <cstdlib>
#include <mutex>
#include <string>

namespace cortado {

void raise_cuda_register_cap(int registers) {
    static std::mutex mutex;
    static int raised_to = 0;  // 0: we have not set the variable
    if (registers <= 0) return;
    std::lock_guard<std::mutex> lock(mutex);
    const char *name = "HL_CUDA_JIT_MAX_REGISTERS";
    if ((raised_to == 0 && std::getenv(name) != nullptr) || registers <= raised_to) return;
    ::setenv(name, std::to_string(registers).c_str(), 1);
    raised_to = registers;
}

}  // namespace cortado
