// Sets $CORTADO_KNOBS for one scope and puts back what was there.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace cortado::testing {

class ScopedKnobs {
  public:
    explicit ScopedKnobs(const char *knobs) {
        if (const char *before = std::getenv("CORTADO_KNOBS")) before_ = before;
        ::setenv("CORTADO_KNOBS", knobs, 1);
    }
    ~ScopedKnobs() {
        if (before_) ::setenv("CORTADO_KNOBS", before_->c_str(), 1);
        else ::unsetenv("CORTADO_KNOBS");
    }
    ScopedKnobs(const ScopedKnobs &) = delete;
    ScopedKnobs &operator=(const ScopedKnobs &) = delete;

  private:
    std::optional<std::string> before_;
};

}  // namespace cortado::testing
