// The one whole-file reader: prototxt, caffemodel and generated files alike. A missing file, a
// directory or a failed read gives an error naming the path instead of an empty text.
#pragma once

#include <string>

namespace cortado {

// False with *error set ("PATH: no such file", "PATH: is a directory, not a file", ...).
bool read_file_bytes(const std::string &path, std::string *bytes, std::string *error);

}  // namespace cortado
