// Sets an environment variable ($CORTADO_KNOBS by default) for one scope and puts back what
// was there.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace cortado::testing {

class ScopedEnv {
  public:
    ScopedEnv(const char *name, const char *value) : name_(name) {
        if (const char *before = std::getenv(name)) before_ = before;
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (before_) ::setenv(name_.c_str(), before_->c_str(), 1);
        else ::unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

  private:
    std::string name_;
    std::optional<std::string> before_;
};

class ScopedKnobs : public ScopedEnv {
  public:
    explicit ScopedKnobs(const char *knobs) : ScopedEnv("CORTADO_KNOBS", knobs) {}
};

}  // namespace cortado::testing
