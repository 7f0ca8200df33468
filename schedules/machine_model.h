// What the CPU default rules know about the machine besides its instruction set: its vector
// register file, its FMA pipes, its caches. A target description states it (targets/README.md);
// `--target host` reads the caches from the operating system; elsewhere the figures below stand
// in, from the Halide target string alone. Halide-free, like the rest of the spaces.
#pragma once

#include <cmath>
#include <string>

namespace cortado::schedules {

// Whether a Halide target string names `feature` as one of its dash-separated parts.
inline bool target_has_feature(const std::string &halide_target, const std::string &feature) {
    return ("-" + halide_target + "-").find("-" + feature + "-") != std::string::npos;
}

struct MachineModel {
    int vector_registers = 16;  // float vector registers the register tiles may fill
    int fma_units = 2;          // full-width vector FMAs a core starts per cycle
    int fma_latency = 4;        // cycles before an FMA's result feeds the next one
    int l1d_kib = 32;           // L1 data cache per core
    int l2_kib = 1024;          // L2 per core
    int l3_kib = 32768;         // L3 the cores share (0: none)
    // Where the figures came from: "description", "detected" (host: caches from the operating
    // system, the rest from the instruction set), or "instruction set".
    std::string source = "instruction set";

    // Floats in a quarter of L2: the share a task's working set may take beside what streams
    // through (the Winograd products' block, the depthwise strip).
    long long quarter_l2_floats() const { return (long long)l2_kib * 1024 / 4 / 4; }
    // Floats in half of L2: a GEMM task's rows of a, read again for every column tile.
    long long half_l2_floats() const { return 2 * quarter_l2_floats(); }
};

// The model a Halide target string implies where nothing better is known. Vector registers
// follow the instruction set (32 with AVX-512 or on ARM64, 16 with AVX2 and below). FMA pipes
// follow the processor Halide tunes for, where it names one: Zen 4 runs a 512-bit FMA on its
// two 256-bit pipes, so one full-width FMA a cycle; Zen 5, Zen 2/3 at 256 bits and Sapphire
// Rapids start two. Caches: 32 KiB L1, 1 MiB L2 and 32 MiB L3, the machines the rules were
// measured on, unless the tuned-for processor says otherwise.
inline MachineModel instruction_set_machine_model(const std::string &halide_target) {
    const auto has = [&](const char *feature) { return target_has_feature(halide_target, feature); };
    MachineModel m;
    const bool arm64 = halide_target.rfind("arm-64-", 0) == 0;
    m.vector_registers = arm64 || has("avx512") ? 32 : 16;
    if (has("tune_znver4")) m.fma_units = 1;
    if (has("tune_znver5") || has("avx512_sapphirerapids")) m.l1d_kib = 48;
    if (has("avx512_sapphirerapids")) m.l2_kib = 2048;
    if (has("tune_znver2") || has("tune_znver3")) m.l2_kib = 512;
    return m;
}

// "32 vector registers, 2 FMA pipes of latency 4, L1d 48 KiB, L2 1024 KiB, L3 32768 KiB (detected)"
inline std::string machine_model_text(const MachineModel &m) {
    return std::to_string(m.vector_registers) + " vector registers, " + std::to_string(m.fma_units) +
           " FMA pipes of latency " + std::to_string(m.fma_latency) + ", L1d " + std::to_string(m.l1d_kib) +
           " KiB, L2 " + std::to_string(m.l2_kib) + " KiB, L3 " + std::to_string(m.l3_kib) + " KiB (" + m.source + ")";
}

// Machines at most this far apart share tuning records in compile, run and bench: the same
// registers and FMA pipes, caches within a factor of two (compiler/record_transfer.h says why).
inline constexpr double kAlikeMachineDistance = 1.0;

// How far apart two machines are for tuning records: the sum of the log2 ratios of their
// figures, pipes and registers weighted double (they shape the register tile), caches once.
// 0: alike in every figure.
inline double machine_distance(const MachineModel &a, const MachineModel &b) {
    const auto apart = [](int x, int y) { return x > 0 && y > 0 ? std::fabs(std::log2(double(x) / y)) : 1.0; };
    return 2 * apart(a.vector_registers, b.vector_registers) + 2 * apart(a.fma_units, b.fma_units) +
           apart(a.fma_latency, b.fma_latency) + apart(a.l1d_kib, b.l1d_kib) + apart(a.l2_kib, b.l2_kib) +
           (a.l3_kib > 0 && b.l3_kib > 0 ? apart(a.l3_kib, b.l3_kib) : 0);
}

}  // namespace cortado::schedules
