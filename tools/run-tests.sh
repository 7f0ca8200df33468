#!/usr/bin/env bash
# The test suite: set up (first time only), build, run every test; then rebuild the tests of
# cortado's own C++ (frontend, runtime, CLI, concurrency, non-finite, fuzzer replay) with
# AddressSanitizer + UndefinedBehaviorSanitizer and run them again.
# Real-network tests read ../shared/models beside the checkout and skip with a message when it
# is absent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/bootstrap.sh" --all
cd "$root"
# The tests of `cortado bench` load OpenBLAS (a bench peer), whose worker threads spin for a
# while after the library loads, on cores the suite needs.
export OPENBLAS_NUM_THREADS=1
(cd build && ctest --output-on-failure -j2 "$@") | tee build/ctest.log
# Which x86 instruction sets the op and non-finite suites ran for on this CPU, for CI's log.
isa_suites() { sed -nE "s/.*Test +#[0-9]+: (ops|non_finite)_test_(x86-64-[a-z0-9]+) .*$1.*/\2/p" build/ctest.log | sort -u | xargs; }
ran=$(isa_suites Passed) skipped=$(isa_suites Skipped)
echo "cortado: op and non-finite suites ran for ${ran:-no x86 instruction set besides the host}${skipped:+; skipped (this CPU cannot execute them, or the host suites ran them): $skipped}"

export PATH="$root/.venv/bin:$PATH"
halide_dir=$(.venv/bin/python -c "import halide; print(halide.install_dir())")
# -O1 -g1: what the sanitizers need (line tables for their stack traces), and much quicker to
# build on CI's two cores than RelWithDebInfo's -O2 -g.
if [ ! -f build-asan/build.ninja ]; then
  cmake -S . -B build-asan -G Ninja -DCORTADO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
    -DCMAKE_PREFIX_PATH="$halide_dir" >/dev/null
fi
sanitized_tests="frontend_test kernel_choice_test runtime_test cli_test robustness_test non_finite_test fuzz_regression_test"
cmake --build build-asan --target cortado $sanitized_tests
# Everything cortado compiles from source is instrumented; the Halide-generated kernels, Halide's
# runtime and libHalide itself are not (they run, but the sanitizers cannot see inside them).
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# GCC 12's sanitizer runtime mistakes a dynamic TLS block (the thread_locals of a dlopen'd network
# library) that happens to start 16 bytes into a page for a pre-2.25 glibc header, and LeakSanitizer's
# tracer then crashes at exit ("Tracer caught signal 11") after every test has passed. Not intercepting
# __tls_get_addr avoids the misreading; the only cost is that pointers held solely in such blocks
# would be reported as leaks, never hidden.
export ASAN_OPTIONS="intercept_tls_get_addr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/tools/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
(cd build-asan && ctest --output-on-failure -j2 -R "^($(echo $sanitized_tests | tr ' ' '|'))\$")
