// The plan options the tests' compiles pass (the harness's and those a test passes itself), and
// scopes that change them: knobs forced on every op, activations kept NCHW. ScopedEnv sets an
// environment variable for one scope, for what reads one (the CLI a test runs, PoCL).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

#include "compiler/plan_options.h"

namespace cortado::testing {

inline PlanOptions &test_plan_options() {
    static PlanOptions options = [] {
        PlanOptions o;
        o.knobs_source = "test knobs";
        return o;
    }();
    return options;
}

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

// "op.knob=value,op.variant=name,...", strongest of the plan's sources, for one scope.
class ScopedKnobs {
  public:
    explicit ScopedKnobs(const std::string &knobs) : before_(test_plan_options().knobs) {
        test_plan_options().knobs = knobs;
    }
    ~ScopedKnobs() { test_plan_options().knobs = before_; }
    ScopedKnobs(const ScopedKnobs &) = delete;
    ScopedKnobs &operator=(const ScopedKnobs &) = delete;

  private:
    std::string before_;
};

class ScopedLayouts {
  public:
    explicit ScopedLayouts(ActivationLayouts layouts) : before_(test_plan_options().layouts) {
        test_plan_options().layouts = layouts;
    }
    ~ScopedLayouts() { test_plan_options().layouts = before_; }
    ScopedLayouts(const ScopedLayouts &) = delete;
    ScopedLayouts &operator=(const ScopedLayouts &) = delete;

  private:
    ActivationLayouts before_;
};

}  // namespace cortado::testing
