#include "runtime/opencl_build_options.h"

#include <mutex>

#include "runtime/runtime_environment.h"

namespace cortado {

void set_opencl_build_options(const char *options) {
    static std::mutex mutex;  // orders this library's own calls; see the header for the rest
    if (options == nullptr || *options == '\0') return;
    std::lock_guard<std::mutex> lock(mutex);
    if (set_by_user("HL_OCL_BUILD_OPTIONS", "CORTADO_OCL_BUILD_OPTIONS")) return;
    set_ours("HL_OCL_BUILD_OPTIONS", "CORTADO_OCL_BUILD_OPTIONS", options);
}

}  // namespace cortado
