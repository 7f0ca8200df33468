// The tuner as a library, without the CLI (compiler/tuner/tuner.h): with a runner that makes up
// times on a clock of its own, how the budget is split, that a seed fixes the search, that a
// rerun resumes, that a compile killed from outside is not a rejection, that a layer the network
// runs in channel blocks is tuned in them; with the real runner, that a stop signal ends every
// child and keeps the records.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "compiler/child_processes.h"
#include "compiler/target_description.h"
#include "compiler/temporary_directory.h"
#include "compiler/tuner/candidate_check.h"
#include "compiler/tuner/local_runner.h"
#include "compiler/tuner/stop_signals.h"
#include "compiler/tuner/tuner.h"
#include "frontend/compile_error.h"
#include "frontend/content_hash.h"
#include "frontend/fusion.h"
#include "frontend/import_caffe.h"
#include "frontend/shape_inference.h"
#include "frontend/untrained_fillers.h"

namespace cortado::testing {
namespace {

namespace fs = std::filesystem;

// Two convolutions of different shapes, so two op signatures.
const char *kTwoConvs =
    "name: \"two\"\n"
    "input: \"data\"\ninput_shape { dim: 2 dim: 16 dim: 12 dim: 12 }\n"
    "layer { name: \"a\" type: \"Convolution\" bottom: \"data\" top: \"a\"\n"
    "  convolution_param { num_output: 32 kernel_size: 3 pad: 1 weight_filler { type: \"gaussian\" std: 0.1 }\n"
    "    bias_filler { type: \"constant\" value: 0.5 } } }\n"
    "layer { name: \"relu\" type: \"ReLU\" bottom: \"a\" top: \"a\" }\n"
    "layer { name: \"b\" type: \"Convolution\" bottom: \"a\" top: \"b\"\n"
    "  convolution_param { num_output: 16 kernel_size: 5 pad: 2 weight_filler { type: \"gaussian\" std: 0.1 } } }\n";

// A chain the planner runs in channel blocks on CPUs: c2 reads and writes them, moved there by
// the layout rule (400 pixels and 64 outputs take pixels in the lanes by default).
const char *kBlockedChain =
    "name: \"chain\"\n"
    "input: \"data\"\ninput_shape { dim: 1 dim: 64 dim: 20 dim: 20 }\n"
    "layer { name: \"c1\" type: \"Convolution\" bottom: \"data\" top: \"c1\"\n"
    "  convolution_param { num_output: 64 kernel_size: 3 pad: 1 weight_filler { type: \"xavier\" } } }\n"
    "layer { name: \"r1\" type: \"ReLU\" bottom: \"c1\" top: \"c1\" }\n"
    "layer { name: \"c2\" type: \"Convolution\" bottom: \"c1\" top: \"c2\"\n"
    "  convolution_param { num_output: 64 kernel_size: 1 weight_filler { type: \"xavier\" } } }\n"
    "layer { name: \"r2\" type: \"ReLU\" bottom: \"c2\" top: \"c2\" }\n"
    "layer { name: \"c3\" type: \"Convolution\" bottom: \"c2\" top: \"c3\"\n"
    "  convolution_param { num_output: 64 kernel_size: 3 pad: 1 weight_filler { type: \"xavier\" } } }\n";

std::vector<TuneLayer> layers_of(const std::string &prototxt, const PlanTarget &target) {
    Graph graph = import_caffe_prototxt_text(prototxt, "net.prototxt", ImportOptions{});
    infer_shapes(graph);
    fill_untrained_weights(graph);
    fuse_activations(graph);
    std::vector<std::string> skipped;
    std::vector<TuneLayer> layers = tune_layers(graph, plan_network(graph, "net", target), &skipped);
    EXPECT_TRUE(skipped.empty());
    return layers;
}

// Makes up what the real runner measures: each compile takes `compile_seconds` of its clock
// (a batch of them, compiled together, too), each candidate `base_ms` of its signature times
// a factor from its choice (1 for the default choice).
class FakeRunner : public Runner {
  public:
    FakeRunner(PlanTarget target, std::map<std::string, double> base_ms) : target_(target), base_ms_(base_ms) {}

    double clock = 0;
    double compile_seconds = 1;
    std::string killed_variant;             // its compiles die of SIGKILL
    std::vector<std::string> compiled;      // every candidate compiled, in order, "signature key"
    std::map<std::string, int> by_signature;  // candidates compiled per signature

    std::unique_ptr<SignatureRunner> open(const TuneLayer &layer) override {
        return std::make_unique<Signature>(*this, layer);
    }

  private:
    class Signature : public SignatureRunner {
      public:
        Signature(FakeRunner &owner, const TuneLayer &layer) : owner_(owner), layer_(layer) {
            std::string why;
            default_key_ = key(*resolve_candidate(layer, owner.target_, PlanOptions{}, ChoiceSettings{}, &why));
        }
        std::vector<std::string> compile(const std::vector<ChoiceSettings> &candidates, int,
                                         std::vector<std::string> *errors) override {
            owner_.clock += owner_.compile_seconds;
            std::vector<std::string> built;
            errors->assign(candidates.size(), "");
            for (size_t i = 0; i < candidates.size(); i++) {
                std::string why;
                const std::optional<KernelInstance> k =
                    resolve_candidate(layer_, owner_.target_, PlanOptions{}, candidates[i], &why);
                EXPECT_TRUE(k) << why;
                const std::string resolved = key(*k);
                owner_.compiled.push_back(layer_.signature + " " + resolved);
                owner_.by_signature[layer_.signature]++;
                if (k->choice.variant == owner_.killed_variant) {
                    built.push_back("");
                    (*errors)[i] = kKilledFromOutside;
                } else {
                    built.push_back(resolved);
                }
            }
            return built;
        }
        CandidateRun measure(const std::string &built, double, double) override {
            CandidateRun run;
            run.outcome = CandidateRun::Outcome::Measured;
            // A factor in [0.5, 1.5) from the choice; the default's is 1.
            const double factor =
                built == default_key_ ? 1.0 : 0.5 + double(std::stoull(content_hash_hex(built).substr(0, 8), nullptr, 16) % 1000) / 1000;
            run.median_ms = run.min_ms = run.max_ms = owner_.base_ms_.at(layer_.steps.front()) * factor;
            run.repetitions = 10;
            run.error = 1e-7;
            return run;
        }

      private:
        static std::string key(const KernelInstance &k) { return Candidate{k.choice.variant, k.choice.knobs.values}.key(); }
        FakeRunner &owner_;
        const TuneLayer &layer_;
        std::string default_key_;
    };

    PlanTarget target_;
    std::map<std::string, double> base_ms_;
};

class TunerLibrary : public ::testing::Test {
  protected:
    void SetUp() override { target_ = resolve_target("host").plan_target(); }

    TunerOptions options(const std::string &db, FakeRunner &runner, uint64_t seed = 1) {
        TunerOptions o;
        o.db = (dir_ / db).string();
        o.target = target_;
        o.seed = seed;
        o.clock = [&runner] { return runner.clock; };
        o.note = [this](const std::string &text) { notes_ += text + "\n"; };
        return o;
    }
    // Runs a fresh tuner over the two convolutions; returns the runner's log.
    FakeRunner tune(const std::string &db, double budget, uint64_t seed = 1, int max_candidates = 1 << 30,
                    const std::string &killed = "") {
        FakeRunner runner(target_, {{"a+relu", 1.0}, {"b", 3.0}});
        runner.killed_variant = killed;
        TunerOptions o = options(db, runner, seed);
        o.max_candidates = max_candidates;
        Tuner tuner(runner, o);
        for (TuneLayer &layer : layers_of(kTwoConvs, target_)) tuner.add(std::move(layer));
        tuner.run(budget);
        resumed_ = tuner.resumed();
        EXPECT_LE(runner.clock, budget + runner.compile_seconds) << "past the budget by more than one batch";
        return runner;
    }
    std::vector<TuningRecord> records(const std::string &db) const {
        return read_tuning_records((dir_ / db).string(), true).records;
    }

    const TemporaryDirectory scratch_{"cortado-tuner"};
    const fs::path dir_{scratch_.path()};
    PlanTarget target_;
    std::string notes_;
    int resumed_ = 0;
};

// The first pass takes both defaults (2 s); the last tenth (5 s) is kept for the finalists; the
// 43 s between go 3:1 to b, whose default takes three times a's.
TEST_F(TunerLibrary, TheBudgetIsSplitByEachSignaturesDefaultTime) {
    const std::vector<TuneLayer> layers = layers_of(kTwoConvs, target_);
    ASSERT_EQ(layers.size(), 2u);
    const FakeRunner runner = tune("db.jsonl", 50);
    const int a = runner.by_signature.at(layers[0].signature), b = runner.by_signature.at(layers[1].signature);
    EXPECT_NEAR(b, 1 + 43 * 0.75, 1.5) << "a " << a << ", b " << b;
    EXPECT_NEAR(a, 1 + 43 * 0.25, 1.5) << "a " << a << ", b " << b;
    // Every candidate is on record, and the finalists (the default and the two fastest of each
    // signature) once more.
    EXPECT_EQ(records("db.jsonl").size(), size_t(a + b + 6));
}

// A record transferred from a near machine (TunerOptions::seeds) is the first candidate after its
// signature's default, so that a short budget measures it before any search.
TEST_F(TunerLibrary, ARecordFromANearMachineIsTriedRightAfterTheDefault) {
    std::vector<TuneLayer> layers = layers_of(kTwoConvs, target_);
    ASSERT_EQ(layers.size(), 2u);
    const KernelInstance &b = layers[1].default_kernel;
    ChoiceSettings seed;
    seed.source = "near.jsonl:1 (transferred from near)", seed.variant = b.choice.variant, seed.transferred_cores = 2;
    for (const auto &[knob, value] : b.choice.knobs.values)
        if ((knob == "task_tiles" || knob == "rows") && value > 1 && seed.knobs.empty()) seed.knobs = {{knob, 1}};
    ASSERT_FALSE(seed.knobs.empty()) << b.choice.variant << " has neither task_tiles nor rows above 1";
    FakeRunner runner(target_, {{"a+relu", 1.0}, {"b", 3.0}});
    TunerOptions o = options("seeded.jsonl", runner);
    o.seeds[layers[1].signature] = seed;
    o.max_candidates = 2;
    Tuner tuner(runner, o);
    for (TuneLayer &layer : layers) tuner.add(std::move(layer));
    tuner.run(100);
    std::vector<std::string> of_b;
    for (const std::string &c : runner.compiled)
        if (c.rfind(layers_of(kTwoConvs, target_)[1].signature, 0) == 0) of_b.push_back(c);
    ASSERT_GE(of_b.size(), 2u);
    const auto seeded = [&](const std::string &compiled) {
        return (compiled + " ").find(" " + seed.knobs[0].first + "=1 ") != std::string::npos;
    };
    EXPECT_FALSE(seeded(of_b[0])) << "the default first: " << of_b[0];
    EXPECT_TRUE(seeded(of_b[1])) << of_b[1];
}

TEST_F(TunerLibrary, TheSameSeedProposesTheSameCandidatesAnotherSeedOthers) {
    const FakeRunner first = tune("first.jsonl", 20, 7);
    const FakeRunner again = tune("again.jsonl", 20, 7);
    const FakeRunner other = tune("other.jsonl", 20, 8);
    ASSERT_GE(first.compiled.size(), 10u);
    EXPECT_EQ(first.compiled, again.compiled);
    EXPECT_NE(first.compiled, other.compiled);
}

TEST_F(TunerLibrary, ARerunResumesWithoutRepeatingACandidate) {
    const FakeRunner first = tune("db.jsonl", 1000, 3, 5);
    const std::set<std::string> earlier(first.compiled.begin(), first.compiled.end());
    ASSERT_EQ(earlier.size(), 10u);  // 5 per signature
    const FakeRunner second = tune("db.jsonl", 1000, 3, 8);
    EXPECT_EQ(resumed_, 10);
    // Three new candidates per signature; the only choices built again are finalists, for the
    // side-by-side round.
    std::set<std::string> fresh;
    int repeated = 0;
    for (const std::string &c : second.compiled) {
        if (earlier.count(c)) repeated++;
        else fresh.insert(c);
    }
    EXPECT_EQ(fresh.size(), 6u);
    EXPECT_LE(repeated, 6) << "more than the finalists were built again";
    // Each run: its new candidates, then three finalists per signature once more.
    EXPECT_EQ(records("db.jsonl").size(), size_t(10 + 6 + 6 + 6));
}

// A layer that the network runs on channel-blocked tensors is tuned in them: its network of its
// own puts a 1x1 convolution before and after it, which the planner blocks as it does the
// network's neighbours; every candidate the search proposes resolves to a kernel that reads and
// writes blocks; only the layer's own step is timed. Without the filter, the same search would
// propose variants that run in NCHW only.
TEST_F(TunerLibrary, ABlockedLayerIsTunedInTheNetworksLayouts) {
    const std::vector<TuneLayer> layers = layers_of(kBlockedChain, target_);
    const auto c2 = std::find_if(layers.begin(), layers.end(),
                                 [](const TuneLayer &l) { return l.steps.front().rfind("c2", 0) == 0; });
    ASSERT_NE(c2, layers.end());
    const ops::Choice &network = c2->default_kernel.choice;
    ASSERT_TRUE(network.layout_in.blocked() && network.layout_out.blocked())
        << "the chain is not blocked: " << c2->default_kernel.signature();
    EXPECT_EQ(c2->default_kernel.variant_source, "layout rule");
    EXPECT_TRUE(c2->blocked());
    EXPECT_EQ(c2->timed_step, c2->steps.front());
    ASSERT_EQ(c2->graph.layers.size(), 3u);
    EXPECT_NO_THROW(check_runs_alone(*c2, plan_network(c2->graph, "net", target_)));
    // c1 reads the network's input, NCHW: a 1x1 convolution after it only.
    const auto c1 = std::find_if(layers.begin(), layers.end(),
                                 [](const TuneLayer &l) { return l.steps.front().rfind("c1", 0) == 0; });
    ASSERT_NE(c1, layers.end());
    EXPECT_EQ(c1->graph.layers.size(), 2u);
    EXPECT_NO_THROW(check_runs_alone(*c1, plan_network(c1->graph, "net", target_)));

    // Proposals resolve to kernels in the network's layouts; the others are refused, naming them.
    const auto variants_proposed = [&](bool blocks_only, int *refused_for_layout) {
        CandidateSearch search = search_for(c2->default_kernel.family, c2->default_kernel.op, c2->signature, 1, 1.0,
                                            blocks_only);
        std::set<std::string> variants;
        *refused_for_layout = 0;
        for (int proposals = 0; proposals < 40; proposals++) {
            const std::optional<ChoiceSettings> proposed = search.next();
            if (!proposed) break;
            std::string why;
            const std::optional<KernelInstance> k = resolve_candidate(*c2, target_, PlanOptions{}, *proposed, &why);
            if (!k) {
                *refused_for_layout += why.find("where the network has") != std::string::npos;
                search.refused(*proposed);
                continue;
            }
            const ops::Choice &c = k->choice;
            EXPECT_TRUE(c.layout_in == network.layout_in && c.layout_out == network.layout_out) << c.variant;
            variants.insert(c.variant);
            search.report(*proposed, Candidate{c.variant, c.knobs.values}, 1.0 + proposals);
        }
        return variants;
    };
    int refused = -1;
    const std::set<std::string> blocked_variants = variants_proposed(true, &refused);
    EXPECT_EQ(refused, 0);
    EXPECT_GE(blocked_variants.size(), 2u) << "no variant but the default's was tried";
    EXPECT_TRUE(blocked_variants.count(network.variant)) << "the default is the network's variant";
    variants_proposed(false, &refused);
    EXPECT_GT(refused, 0) << "without the filter, no NCHW-only variant was proposed: the test proves nothing";
}

// A compile that dies of SIGKILL (the out-of-memory killer, or a person) says nothing about the
// candidate: it is named in a warning, left out of the database, and the tune goes on.
TEST_F(TunerLibrary, ACompileKilledFromOutsideIsNotARejection) {
    const FakeRunner runner = tune("db.jsonl", 30, 1, 1 << 30, "cpu_winograd_f2");
    int killed = 0;
    for (const std::string &c : runner.compiled) killed += c.find(" cpu_winograd_f2") != std::string::npos;
    ASSERT_GE(killed, 1) << "never proposed";
    int measured = 0;
    for (const TuningRecord &r : records("db.jsonl")) {
        EXPECT_NE(r.variant, "cpu_winograd_f2");
        measured += r.measured();
    }
    EXPECT_GE(measured, 10);
    EXPECT_NE(notes_.find("cpu_winograd_f2"), std::string::npos) << notes_;
    EXPECT_NE(notes_.find("killed from outside (SIGKILL: out of memory?); not recorded, so a rerun tries it again"),
              std::string::npos)
        << notes_;
}

// How the real runner reads its compiles' ends: a SIGKILL is kKilledFromOutside, a stop signal
// kStoppedByUser, anything else the candidate's own failure.
TEST_F(TunerLibrary, CompileFailuresAreToldApartByHowTheChildEnded) {
    std::map<size_t, std::string> why;
    run_in_child_processes(
        4, 2,
        [](size_t i) {
            if (i == 0) ::raise(SIGKILL);
            if (i == 1) ::raise(SIGTERM);
            if (i == 2) throw CompileError("no such schedule");
            ::_exit(3);
        },
        [&](size_t i, const ChildOutcome &outcome) {
            why[i] = compile_failure(outcome);
            return true;
        });
    EXPECT_EQ(why[0], kKilledFromOutside);
    EXPECT_EQ(why[1], kStoppedByUser);
    EXPECT_EQ(why[2], "no such schedule");
    EXPECT_EQ(why[3], "the compiler exited with status 3");
}

// The pieces the runners stop with: compiles that would run for a minute, and a candidate that
// hangs while it loads (its library a FIFO nobody writes), end within a poll of `stop`.
TEST_F(TunerLibrary, AStopEndsChildrenThatWouldRunOn) {
    const auto started = std::chrono::steady_clock::now();
    const auto after_300_ms = [&] { return std::chrono::steady_clock::now() - started > std::chrono::milliseconds(300); };
    std::vector<std::string> why(3);
    run_in_child_processes(
        3, 2, [](size_t) { ::sleep(60); },
        [&](size_t i, const ChildOutcome &outcome) {
            why[i] = compile_failure(outcome);
            return true;
        },
        after_300_ms);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_LT(seconds, 1.5);
    EXPECT_EQ(why[0], kStoppedByUser);
    EXPECT_EQ(why[1], kStoppedByUser);
    EXPECT_EQ(why[2], "") << "started after the stop";

    const std::string fifo = (dir_ / "libnet.so").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    LayerReference reference;
    reference.input = {1.0f};
    reference.expected = {{1}, {1.0}};
    const auto measuring = std::chrono::steady_clock::now();
    const auto stop = [&] { return std::chrono::steady_clock::now() - measuring > std::chrono::milliseconds(300); };
    const CandidateRun run = measure_candidate(fifo, reference, CandidateMeasure{}, stop);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - measuring).count();
    EXPECT_EQ(int(run.outcome), int(CandidateRun::Outcome::Interrupted)) << run.reason;
    EXPECT_LT(seconds, 1.5);
}

// A SIGTERM to the tuner alone (not to its process group, as a terminal's Ctrl-C sends) still
// ends every compile and measurement under way: the tuner exits soon, leaves no process behind,
// and keeps every record it wrote.
TEST_F(TunerLibrary, AStopSignalEndsEveryChildAndKeepsTheRecords) {
    const std::string db = (dir_ / "db.jsonl").string();
    const pid_t tuner = ::fork();
    ASSERT_GE(tuner, 0);
    if (tuner == 0) {
        ::setpgid(0, 0);  // the tuner and its children alone in a group, for the check below
        int code = 1;
        try {
            const StopSignals stop_signals;
            const TargetDescription host = resolve_target("host");
            LocalRunner runner(host, PlanOptions{}, 1, &StopSignals::requested);
            TunerOptions o;
            o.db = db;
            o.target = host.plan_target();
            o.jobs = 2;
            o.stop = &StopSignals::requested;
            Tuner t(runner, o);
            for (TuneLayer &layer : layers_of(kTwoConvs, o.target)) t.add(std::move(layer));
            t.run(600);
            code = t.stopped_by_user() ? 130 : 0;
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s\n", e.what());
        }
        ::_exit(code);
    }
    ::setpgid(tuner, tuner);
    // Stop it once it has recorded a few candidates, in the middle of its search.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    size_t lines = 0;
    while (std::chrono::steady_clock::now() < give_up && lines < 3) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        lines = fs::exists(db) ? read_tuning_records(db, false).records.size() : 0;
    }
    ASSERT_GE(lines, 3u);
    ::kill(tuner, SIGTERM);
    const auto stopped_at = std::chrono::steady_clock::now();
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(tuner, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() - stopped_at < std::chrono::seconds(60))
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(done, tuner) << "still running a minute after SIGTERM";
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped_at).count();
    EXPECT_LT(seconds, 10) << "a stop waits for no compile to finish";
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    errno = 0;
    EXPECT_EQ(::kill(-tuner, 0), -1) << "a child of the tuner is still running";
    EXPECT_EQ(errno, ESRCH);
    const TuningDbFile after = read_tuning_records(db, true);
    EXPECT_TRUE(after.warnings.empty()) << after.warnings.front();
    EXPECT_GE(after.records.size(), lines);
}

}  // namespace
}  // namespace cortado::testing
