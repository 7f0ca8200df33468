// Where cortado finds what it needs besides itself, laid out under one prefix as `cmake
// --install` places it and as the build tree mirrors it:
//   PREFIX/bin/cortado                    (build tree: build/tools/cortado, build/tests/*)
//   PREFIX/lib/libcortado_runtime.a       what every emitted network library links
//   PREFIX/lib/libcortado_bench_peers.so  oneDNN and OpenBLAS for `bench`, where they were found
//   PREFIX/share/cortado/targets/         target descriptions and shipped tuning records
//   PREFIX/share/cortado/runtime/, ops/   runtime sources, for the emitted glue and
//                                         for building the runtime for a cross target
//   PREFIX/share/cortado/halide-include/  Halide's runtime headers
//   PREFIX/share/cortado/tools/           the scripts `cortado bench exported` runs
//   PREFIX/share/cortado/shared/          the benchmark suites (a source checkout's ../shared;
//                                         absent from an install: give --set / --models)
// The prefix is HostSettings::install_prefix (the CLI's $CORTADO_HOME) when set, else the folder
// above the running executable's, so an installed cortado never looks into the tree it was built
// from.
#pragma once

#include <string>

namespace cortado {

// Throws CompileError naming what is missing, and CORTADO_HOME, when the layout is not there.
std::string install_prefix();
std::string data_dir();            // PREFIX/share/cortado
std::string runtime_library();     // PREFIX/lib/libcortado_runtime.a
std::string halide_include_dir();  // PREFIX/share/cortado/halide-include

// A file of the benchmark suites, e.g. "models" or "bench/boda-convs.csv"; throws CompileError
// saying which option to give instead when this install has no suites.
std::string shared_file(const std::string &relative, const std::string &option);

}  // namespace cortado
