// The schedule version of a variant: a hash of the sources that decide what its kernels compute
// and how fast: its schedule headers, the algorithm they schedule and its knob-space header, with
// every project header they include; and, without their includes, the op's generator (which
// hands the knobs to the schedule) and the family spaces that declare the variant. Tuning records
// carry it, so a record goes stale when that code changes and stays valid across unrelated
// commits (frontend, runtime, other ops' schedules, docs).
#pragma once

#include <string>
#include <vector>

namespace cortado {

// Throws CompileError when no sources are listed for the variant (a new variant needs a line in
// compiler/schedule_version.cc) or one of them is not a known source.
std::string schedule_version(const std::string &op, const std::string &variant);

// The sources the version covers, sorted (for `cortado info` and the tests).
std::vector<std::string> schedule_version_sources(const std::string &op, const std::string &variant);

}  // namespace cortado
