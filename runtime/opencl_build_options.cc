#include "runtime/opencl_build_options.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cortado {

void set_opencl_build_options(const char *options) {
    static std::mutex mutex;  // orders this library's own calls; see the header for the rest
    if (options == nullptr || *options == '\0') return;
    std::lock_guard<std::mutex> lock(mutex);
    const char *current = std::getenv("HL_OCL_BUILD_OPTIONS");
    const char *ours = std::getenv("CORTADO_OCL_BUILD_OPTIONS");
    if (current != nullptr && (ours == nullptr || std::strcmp(current, ours) != 0)) return;  // the user's
    ::setenv("CORTADO_OCL_BUILD_OPTIONS", options, 1);
    ::setenv("HL_OCL_BUILD_OPTIONS", options, 1);
}

}  // namespace cortado
