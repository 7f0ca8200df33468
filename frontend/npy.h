// NumPy .npy files of float32: the interchange format between `cortado run` and the Python
// reference scripts, read and written without a NumPy dependency on the C++ side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cortado {

// Accepts format versions 1.0, 2.0 and 3.0 holding a little-endian float32 ('<f4') array in C
// order. On success replaces *shape (empty for a 0-d array) and *data. Otherwise returns false,
// leaves both alone and sets *error to one line naming the file and what is wrong.
bool read_npy(const std::string &path, std::vector<int64_t> *shape, std::vector<float> *data, std::string *error);
// The same over a buffer; errors name the source "<memory>".
bool parse_npy(const uint8_t *bytes, size_t size, std::vector<int64_t> *shape, std::vector<float> *data,
               std::string *error);

// Writes format version 1.0, '<f4', C order, with the header padded to a multiple of 64 bytes as
// numpy.save does. `data` holds the product of `shape` values (one for an empty shape).
bool write_npy(const std::string &path, const std::vector<int64_t> &shape, const float *data, std::string *error);

}  // namespace cortado
