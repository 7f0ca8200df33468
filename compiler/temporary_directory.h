// A private directory under the system's temporary folder, removed with everything in it when
// the object goes; for networks compiled only to be loaded and run.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "frontend/compile_error.h"

namespace cortado {

class TemporaryDirectory {
  public:
    explicit TemporaryDirectory(const std::string &prefix) {
        std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        if (!mkdtemp(pattern.data())) throw CompileError("cannot create a temporary directory " + pattern);
        path_ = pattern;
    }
    ~TemporaryDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TemporaryDirectory(const TemporaryDirectory &) = delete;
    TemporaryDirectory &operator=(const TemporaryDirectory &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace cortado
