// The schedule version of a variant: a hash of the sources that decide what its kernels compute
// and how fast, as its registration names them (schedules/space.h, VariantSpec::sources): its
// schedule headers and knob-space header, with every project header they include (the
// algorithm, the op vocabulary); and, without their includes, the op's generator (which builds
// the algorithm of the variant's form), its family's bindings.cc (which hands the knobs to the
// schedule) and the space.h of every family that offers it. Tuning records
// carry it, so a record goes stale when that code changes and stays valid across unrelated
// commits (frontend, runtime, other ops' schedules, docs).
#pragma once

#include <string>
#include <vector>

namespace cortado {

// Throws CompileError when no family offers the variant, its registration names no sources, or
// one of them is not a known source.
std::string schedule_version(const std::string &op, const std::string &variant);

// The sources the version covers, sorted (for `cortado info` and the tests).
std::vector<std::string> schedule_version_sources(const std::string &op, const std::string &variant);

}  // namespace cortado
