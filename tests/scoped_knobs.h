// The plan options the tests' compiles pass (the harness's and those a test passes itself), and
// scopes that change them: knobs forced on every op, activations kept NCHW. ScopedEnv sets an
// environment variable for one scope, for what reads one (the CLI a test runs, PoCL).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

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

// One field of the tests' plan options set for one scope, and what was there put back after.
template <typename T>
class ScopedPlanOption {
  public:
    ScopedPlanOption(T PlanOptions::*field, T value) : field_(field), before_(test_plan_options().*field) {
        test_plan_options().*field = std::move(value);
    }
    ~ScopedPlanOption() { test_plan_options().*field_ = before_; }
    ScopedPlanOption(const ScopedPlanOption &) = delete;
    ScopedPlanOption &operator=(const ScopedPlanOption &) = delete;

  private:
    T PlanOptions::*field_;
    T before_;
};

// "op.knob=value,op.variant=name,...", strongest of the plan's sources.
struct ScopedKnobs : ScopedPlanOption<std::string> {
    explicit ScopedKnobs(const std::string &knobs) : ScopedPlanOption(&PlanOptions::knobs, knobs) {}
};

struct ScopedLayouts : ScopedPlanOption<ActivationLayouts> {
    explicit ScopedLayouts(ActivationLayouts layouts) : ScopedPlanOption(&PlanOptions::layouts, layouts) {}
};

}  // namespace cortado::testing
