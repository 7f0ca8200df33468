// The machine model of the CPU cortado runs on, for `--target host`: the instruction set's
// (schedules/machine_model.h) with the cache sizes the operating system reports.
#pragma once

#include <string>

#include "schedules/machine_model.h"

namespace cortado {

// `halide_target` is the host's. Caches come from Linux's
// /sys/devices/system/cpu/cpu0/cache/index*/ (level, type, size); where it is unreadable the
// instruction set's figures stay and the source says so.
schedules::MachineModel host_machine_model(const std::string &halide_target);

}  // namespace cortado
