// The entry points of cortado's fuzzers, shared by the libFuzzer binaries (fuzz_*.cc) and the
// regression test that replays every committed crasher (fuzz_regression_test.cc). Each takes
// arbitrary bytes and must either accept them or report a clean error: any crash, sanitizer
// report, uncaught exception other than the documented error type, or hang is a bug.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cortado::fuzz {

// Prototxt text -> import, shape inference, fusion, kernel and memory plan, C emission.
void prototxt_one_input(const uint8_t *data, size_t size);
// ONNX model bytes -> import, shape inference, fusion, kernel and memory plan, C emission.
void onnx_one_input(const uint8_t *data, size_t size);
// Binary .caffemodel -> the runtime's decoder.
void caffemodel_one_input(const uint8_t *data, size_t size);
// .npy bytes -> the CLI's reader.
void npy_one_input(const uint8_t *data, size_t size);
// .qparams text -> its reader, the precision pass on a small network with every kind of
// convolution, fusion, the kernel and memory plan, C emission.
void qparams_one_input(const uint8_t *data, size_t size);

}  // namespace cortado::fuzz
