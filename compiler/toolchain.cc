#include "compiler/toolchain.h"

#include <sys/utsname.h>

#include <cstdlib>

#include "Halide.h"
#include "compiler/host_settings.h"
#include "frontend/compile_error.h"

namespace cortado {
namespace {

// "arm-64-linux-..." -> "arm-64-linux": the part of a Halide target that picks the toolchain.
std::string arch_bits_os(const std::string &halide_target) {
    size_t end = 0;
    for (int part = 0; part < 3 && end != std::string::npos; part++)
        end = halide_target.find('-', end == 0 ? 0 : end + 1);
    return halide_target.substr(0, end);
}

std::string host_arch_bits_os() {
    utsname name{};
    ::uname(&name);
    const std::string machine = name.machine;
    if (machine == "x86_64") return "x86-64-linux";
    if (machine == "aarch64") return "arm-64-linux";
    return machine;
}

bool on_path(const std::string &program) {
    return std::system(("command -v '" + program + "' >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace

Toolchain toolchain_for(const std::string &halide_target) {
    const std::string platform = arch_bits_os(halide_target);
    if (platform == host_arch_bits_os()) {
        const std::string &cxx = host_settings().host_cxx;
        return {cxx.empty() ? "c++" : cxx, "ar", false};
    }
    std::string prefix = host_settings().cross_prefix;
    if (prefix.empty() && platform == "arm-64-linux") prefix = "aarch64-linux-gnu-";
    if (prefix.empty())
        throw CompileError("no cross toolchain known for " + platform + " (target " + halide_target +
                           "); set CORTADO_CROSS_PREFIX to its GNU prefix, e.g. aarch64-linux-gnu-");
    Toolchain toolchain{prefix + "g++", prefix + "ar", true};
    if (!on_path(toolchain.cxx))
        throw CompileError("target " + halide_target + " needs the cross compiler " + toolchain.cxx +
                           (prefix == "aarch64-linux-gnu-" ? " (Debian: apt install g++-aarch64-linux-gnu)" : ""));
    return toolchain;
}

std::string why_cannot_run_here(const std::string &halide_target) {
    if (arch_bits_os(halide_target) != host_arch_bits_os())
        return "this " + host_arch_bits_os() + " machine cannot execute code for " + halide_target;
    // The instruction-set features Halide's host detection reports: code that uses one this CPU
    // lacks dies of an illegal instruction.
    using F = Halide::Target::Feature;
    static const F instruction_sets[] = {F::SSE41,
                                         F::AVX,
                                         F::AVX2,
                                         F::AVXVNNI,
                                         F::FMA,
                                         F::FMA4,
                                         F::F16C,
                                         F::AVX512,
                                         F::AVX512_KNL,
                                         F::AVX512_Skylake,
                                         F::AVX512_Cannonlake,
                                         F::AVX512_SapphireRapids,
                                         F::AVX512_Zen4,
                                         F::AVX512_Zen5,
                                         F::AVX10_1,
                                         F::X86APX,
                                         F::SVE,
                                         F::SVE2,
                                         F::ARMDotProd,
                                         F::ARMFp16};
    const Halide::Target wanted(halide_target), host = Halide::get_host_target();
    std::string missing;
    for (F feature : instruction_sets)
        if (wanted.has_feature(feature) && !host.has_feature(feature))
            missing += (missing.empty() ? "" : ", ") + Halide::Target::feature_to_name(feature);
    if (missing.empty()) return "";
    return "this CPU cannot execute code for " + halide_target + ": it lacks " + missing +
           " (host: " + host.to_string() + ")";
}

void require_runs_here(const std::string &halide_target, const std::string &command) {
    const std::string why = why_cannot_run_here(halide_target);
    if (why.empty()) return;
    throw CompileError("`cortado " + command + "` runs the network here, but " + why +
                       "; build it with `cortado compile --target ...` and run it on that device "
                       "(the test suites run arm-64-linux under qemu-aarch64)");
}

}  // namespace cortado
