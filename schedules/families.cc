#include "schedules/families.h"

#include "schedules/arm/space.h"
#include "schedules/cpu/space.h"
#include "schedules/gpu/space.h"
#include "schedules/hvx/space.h"
#include "schedules/x86/space.h"

namespace cortado::schedules::detail {

std::map<std::string, FamilySpace> &family_table() {
    static std::map<std::string, FamilySpace> all = {{"cpu", cpu::space()},
                                                     {"x86", x86::space()},
                                                     {"arm", arm::space()},
                                                     {"gpu", gpu::space()},
                                                     {"hvx", hvx::space()}};
    return all;
}

}  // namespace cortado::schedules::detail
