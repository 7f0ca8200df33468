#include "compiler/tuner/local_runner.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>

#include "compiler/network_builder.h"
#include "compiler/tuner/candidate_check.h"
#include "compiler/tuner/stop_signals.h"
#include "frontend/compile_error.h"

namespace cortado {
namespace fs = std::filesystem;

namespace {

class LocalSignatureRunner : public SignatureRunner {
  public:
    LocalSignatureRunner(const TuneLayer &layer, const TargetDescription &target,
                         const PlanOptions &options, uint64_t seed, const std::function<bool()> &stop,
                         const std::string &scratch)
        : layer_(layer), target_(target), options_(options), seed_(seed), stop_(stop),
          folder_((fs::path(scratch) / layer.signature).string()) {
        const NetworkPlan plan = plan_network(layer.graph, "net", target.plan_target(), options);
        check_runs_alone(layer, plan);
        reference_ = layer_reference(layer.graph, plan, seed, layer.steps[0]);
    }

    std::vector<std::string> compile(const std::vector<ChoiceSettings> &candidates, int jobs,
                                     std::vector<std::string> *errors) override {
        return compile_candidates(layer_, target_, options_, candidates, jobs, folder_, &compiled_, stop_, errors);
    }

    CandidateRun measure(const std::string &library, double tolerance, double best_ms) override {
        CandidateMeasure how;
        how.seed = seed_;
        how.tolerance = tolerance;
        how.best_ms = best_ms;
        // A blocked layer runs between a 1x1 convolution and a pooling (tune_layers.h): only its
        // step counts.
        if (!layer_.timed_step.empty()) {
            how.timing = CandidateTiming::LayerProfile;
            how.step = layer_.timed_step;
        }
        return measure_candidate(library, reference_, how, stop_);
    }

    void discard(const std::string &library) override {
        std::error_code ignored;  // a folder left behind goes with the scratch folder
        fs::remove_all(fs::path(library).parent_path(), ignored);
    }

  private:
    const TuneLayer &layer_;
    const TargetDescription &target_;
    const PlanOptions &options_;
    uint64_t seed_;
    const std::function<bool()> &stop_;
    std::string folder_;
    LayerReference reference_;
    int compiled_ = 0;
};

}  // namespace

void check_runs_alone(const TuneLayer &layer, const NetworkPlan &plan) {
    const KernelInstance *same = layer_kernel(layer, plan);
    if (!same)
        throw CompileError(layer.steps[0] + ": run alone, its layer plans to another op signature than in the network");
    if (const std::string why = layout_mismatch(layer, *same); !why.empty())
        throw CompileError(layer.steps[0] + ": run alone, " + why);
}

std::vector<std::string> compile_candidates(const TuneLayer &layer, const TargetDescription &target,
                                            const PlanOptions &options, const std::vector<ChoiceSettings> &candidates,
                                            int jobs, const std::string &folder, int *counter,
                                            const std::function<bool()> &stop, std::vector<std::string> *errors) {
    std::vector<std::string> libraries(candidates.size()), dirs(candidates.size());
    errors->assign(candidates.size(), "");
    for (std::string &dir : dirs) {
        dir = (fs::path(folder) / ("candidate-" + std::to_string((*counter)++))).string();
        fs::create_directories(dir);
    }
    const auto compile_one = [&](size_t i) {
        default_stop_signals();  // the tuner's handler only notes them
        const PlanOptions plan = candidate_plan_options(layer, options, candidates[i]);
        link_shared_library(build_network(layer.graph, "net", target, dirs[i], BuildOptions(plan)), dirs[i]);
    };
    const auto ended = [&](size_t i, const ChildOutcome &outcome) {
        const fs::path so = fs::path(dirs[i]) / "libnet.so";
        if (outcome.succeeded() && fs::exists(so)) libraries[i] = so.string();
        else (*errors)[i] = compile_failure(outcome);
        return true;
    };
    run_in_child_processes(candidates.size(), jobs, compile_one, ended, stop);
    return libraries;
}

std::string compile_failure(const ChildOutcome &outcome) {
    if (ended_by_stop_signal(outcome.status)) return kStoppedByUser;
    if (WIFSIGNALED(outcome.status) && WTERMSIG(outcome.status) == SIGKILL) return kKilledFromOutside;
    return outcome.error.empty() ? "the compiler " + describe_wait_status(outcome.status) : outcome.error;
}

LocalRunner::LocalRunner(TargetDescription target, PlanOptions options, uint64_t seed, std::function<bool()> stop)
    : target_(std::move(target)), options_(std::move(options)), seed_(seed), stop_(std::move(stop)),
      scratch_("cortado-tune") {}

std::unique_ptr<SignatureRunner> LocalRunner::open(const TuneLayer &layer) {
    return std::make_unique<LocalSignatureRunner>(layer, target_, options_, seed_, stop_, scratch_.path());
}

}  // namespace cortado
