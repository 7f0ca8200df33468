#include "runtime/runtime_environment.h"

#include <cstdlib>
#include <cstring>

namespace cortado {

bool set_by_user(const char *name, const char *shadow) {
    const char *value = std::getenv(name);
    const char *ours = std::getenv(shadow);
    return value != nullptr && (ours == nullptr || std::strcmp(value, ours) != 0);
}

void set_ours(const char *name, const char *shadow, const char *value) {
    ::setenv(shadow, value, 1);
    ::setenv(name, value, 1);
}

}  // namespace cortado
