#include "compiler/host_settings.h"

namespace cortado {

namespace {

HostSettings &current() {
    static HostSettings settings;
    return settings;
}

}  // namespace

void set_host_settings(const HostSettings &settings) { current() = settings; }

const HostSettings &host_settings() { return current(); }

}  // namespace cortado
