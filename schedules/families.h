// The schedule families by name, and which one a Halide target string gets when its target
// description names none. Adding a family: a folder schedules/<family>/ with a space.h, a line
// here, and its variants' schedule functions in the generators' tables.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedules/arm/space.h"
#include "schedules/cpu/space.h"
#include "schedules/gpu/space.h"
#include "schedules/hvx/space.h"
#include "schedules/x86/space.h"

namespace cortado::schedules {

inline const std::map<std::string, FamilySpace> &families() {
    static const std::map<std::string, FamilySpace> all = {{"cpu", cpu::space()},
                                                           {"x86", x86::space()},
                                                           {"arm", arm::space()},
                                                           {"gpu", gpu::space()},
                                                           {"hvx", hvx::space()}};
    return all;
}

inline std::string family_names() {
    std::string names;
    for (const auto &[name, space] : families()) names += (names.empty() ? "" : ", ") + name;
    return names;
}

}  // namespace cortado::schedules
