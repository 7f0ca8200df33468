// The one exception type the compiler throws. Its message is complete and user-facing: it names
// the file and line or the layer, and the CLI prints it as is.
#pragma once

#include <stdexcept>
#include <string>

namespace cortado {

class CompileError : public std::runtime_error {
  public:
    explicit CompileError(const std::string &message) : std::runtime_error(message) {}
};

}  // namespace cortado
