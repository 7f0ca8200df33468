// `cortado tune` end to end on a small network: a deliberately wrong variant is rejected and
// never chosen, a hand-written record is named in the summary, Ctrl-C keeps every record and a
// rerun resumes without repeating a candidate, the budget holds, bundles for another machine are
// measured by tune_bundle_runner (on PoCL here) and come back through --import, the database
// feeds `info --plan`, a layer the network runs in channel blocks is measured and kept in them,
// and bad input gets a clear error. The tuner's logic without the CLI:
// tuner_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "compiler/schedule_version.h"
#include "compiler/tuning_db.h"
#include "tests/cli_process.h"
#include "tests/wrong_variant.h"

namespace cortado::testing {
namespace {

namespace fs = std::filesystem;

// A convolution with several variants that can compute it: the register tile, channel lanes and
// Winograd.
const char *kTunableNet =
    "name: \"tunable\"\n"
    "input: \"data\"\ninput_shape { dim: 2 dim: 16 dim: 12 dim: 12 }\n"
    "layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\"\n"
    "  convolution_param { num_output: 32 kernel_size: 3 pad: 1 weight_filler { type: \"gaussian\" std: 0.1 }\n"
    "    bias_filler { type: \"constant\" value: 0.5 } } }\n"
    "layer { name: \"relu\" type: \"ReLU\" bottom: \"conv\" top: \"conv\" }\n";

class Tune : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cortado-tune-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
        std::ofstream(net_ = (dir_ / "tunable.prototxt").string()) << kTunableNet;
        db_ = (dir_ / "tuning.jsonl").string();
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::vector<TuningRecord> records() const { return read_tuning_records(db_, true).records; }
    // The op signature of the net's conv+relu step, from `info --plan` (`extra`: e.g. a target).
    std::string conv_signature(const std::string &extra = "") const {
        const Result plan = cortado("info " + net_ + " --plan" + extra);
        EXPECT_EQ(plan.exit_code, 0) << plan.output;
        std::istringstream lines(plan.output);
        std::string line, step, op, kernel, signature;
        while (std::getline(lines, line))
            if (line.rfind("conv+relu", 0) == 0) std::istringstream(line) >> step >> op >> kernel >> signature;
        EXPECT_FALSE(signature.empty()) << plan.output;
        return signature;
    }
    fs::path dir_;
    std::string net_, db_;
};

// The CLI built with tests/wrong_variant.cc proposes its wrong variant like any other.
TEST_F(Tune, AWrongVariantIsRejectedAndNeverChosen) {
    const Result r =
        cortado_with_wrong_variant("tune " + net_ + " --db " + db_ + " --budget 5 --max-candidates 8 --seed 3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    int wrong = 0, measured = 0;
    for (const TuningRecord &record : records()) {
        if (record.variant == kWrongVariant) {
            wrong++;
            EXPECT_TRUE(record.rejected);
            EXPECT_NE(record.reason.find("above the variant's tolerance"), std::string::npos) << record.reason;
            EXPECT_GT(record.error, 1e-3);
        } else {
            EXPECT_FALSE(record.rejected) << record.reason;
            EXPECT_LE(record.error, record.tolerance);
            EXPECT_GT(record.median_ms, 0);
            EXPECT_LE(record.min_ms, record.median_ms);
            EXPECT_GE(record.max_ms, record.median_ms);
            EXPECT_FALSE(record.schedule_version.empty());
            measured++;
        }
    }
    EXPECT_EQ(wrong, 1) << "every variant's defaults come early:\n" << r.output;
    EXPECT_GE(measured, 2);
    EXPECT_NE(r.output.find("steps"), std::string::npos) << "no summary table:\n" << r.output;

    // The plan takes the best measured record, whatever the wrong variant measured.
    const Result plan = cortado_with_wrong_variant("info " + net_ + " --plan --db " + db_);
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    EXPECT_EQ(plan.output.find(kWrongVariant), std::string::npos) << plan.output;
    EXPECT_NE(plan.output.find("[" + db_ + ":"), std::string::npos) << plan.output;
    // ... and the tuned network passes its check.
    const Result run = cortado_with_wrong_variant("run " + net_ + " --check --db " + db_);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("PASS"), std::string::npos) << run.output;
}

// The database offers a hand-written record before any measured one, so the summary names it
// rather than the fastest candidate.
TEST_F(Tune, TheSummaryNamesAHandWrittenRecordThatOverridesTheMeasuredBest) {
    const std::string signature = conv_signature();
    ASSERT_FALSE(signature.empty());
    const nlohmann::json hand = {{"op_signature", signature}, {"op", "conv2d"}, {"variant", "cpu_register_tile"}};
    std::ofstream(db_) << hand.dump() << "\n";
    const Result r = cortado("tune " + net_ + " --db " + db_ + " --budget 1 --max-candidates 2 --seed 3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the hand-written record at " + db_ + ":1 (cpu_register_tile), not the measured"),
              std::string::npos)
        << r.output;
}

TEST_F(Tune, CtrlCKeepsTheRecordsAndARerunResumesWithoutRepeatingACandidate) {
    const std::string log = (dir_ / "first.log").string();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (!std::freopen(log.c_str(), "w", stdout) || !std::freopen(log.c_str(), "a", stderr)) ::_exit(99);
        ::execl(CORTADO_BINARY, "cortado", "tune", net_.c_str(), "--db", db_.c_str(), "--budget", "10", "--seed", "5",
                static_cast<char *>(nullptr));
        ::_exit(98);
    }
    // Interrupt once three candidates are on record.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(4);
    size_t lines = 0;
    while (std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        lines = fs::exists(db_) ? read_tuning_records(db_, true).records.size() : 0;
        if (lines >= 3) break;
    }
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::ifstream first_log(log);
    const std::string first((std::istreambuf_iterator<char>(first_log)), std::istreambuf_iterator<char>());
    ASSERT_GE(lines, 3u) << first;
    ASSERT_TRUE(WIFEXITED(status)) << first;
    EXPECT_EQ(WEXITSTATUS(status), 130) << first;
    EXPECT_NE(first.find("interrupted"), std::string::npos) << first;
    const size_t kept = records().size();
    ASSERT_GE(kept, 3u);

    const Result r =
        cortado("tune " + net_ + " --db " + db_ + " --budget 5 --seed 5 --max-candidates " + std::to_string(kept + 2));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("resumed: " + std::to_string(kept) + " candidates"), std::string::npos) << r.output;
    // Two new candidates, then the finalists (the default and the two fastest) measured once
    // more side by side; nothing else is measured again.
    const std::vector<TuningRecord> all = records();
    std::map<std::string, int> times;
    for (const TuningRecord &record : all) {
        std::string key = record.variant;
        for (const auto &[name, value] : record.knobs) key += " " + name + "=" + std::to_string(value);
        times[key]++;
    }
    EXPECT_EQ(times.size(), kept + 2) << r.output;
    int again = 0;
    for (const auto &[key, count] : times) {
        EXPECT_LE(count, 2) << key;
        again += count - 1;
    }
    EXPECT_LE(again, 3);
    // The re-measured choices are the last lines: the finalists' side-by-side round.
    for (size_t i = all.size() - size_t(again); i < all.size(); i++) {
        std::string key = all[i].variant;
        for (const auto &[name, value] : all[i].knobs) key += " " + name + "=" + std::to_string(value);
        EXPECT_EQ(times[key], 2) << "a finalist measured once: " << key;
    }
}

TEST_F(Tune, TheBudgetHoldsAndCorruptLinesOnlyWarn) {
    std::ofstream(db_) << "{\"op_signature\": \"x\", \"op\": \"deconv\"}\nnot json at all\n";
    const auto start = std::chrono::steady_clock::now();
    const Result r = cortado("tune " + net_ + " --db " + db_ + " --budget 0.5 --seed 7");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(db_ + ":1: skipped: no op 'deconv'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(db_ + ":2: skipped: not a JSON object"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("finished after"), std::string::npos) << r.output;
    // 30 s of budget; past it runs at most the batch of candidates under way (one compile per
    // core, then their measurement), generous for a slow machine.
    EXPECT_LT(seconds, 30 + 90) << r.output;
    EXPECT_GE(records().size(), 1u) << r.output;
    // The corrupt lines stay where they were; the plan reads past them.
    const Result plan = cortado("info " + net_ + " --plan --db " + db_);
    EXPECT_EQ(plan.exit_code, 0) << plan.output;
    EXPECT_NE(plan.output.find(db_ + ":2: skipped"), std::string::npos) << plan.output;
}

TEST_F(Tune, PreparedBundlesForAnotherMachineComeBackThroughImport) {
    const std::string bundles = (dir_ / "bundles").string();
    Result r =
        cortado("tune " + net_ + " --target opencl-pocl --prepare " + bundles + " --max-candidates 3 --db " + db_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream manifest_file(bundles + "/bundle-0/tune.json");
    const nlohmann::json manifest = nlohmann::json::parse(manifest_file);
    ASSERT_EQ(manifest["signatures"].size(), 1u) << manifest.dump(1);
    const nlohmann::json &signature = manifest["signatures"][0];
    ASSERT_EQ(signature["candidates"].size(), 3u) << manifest.dump(1);
    EXPECT_TRUE(fs::exists(bundles + "/bundle-0/" + signature["graph"].get<std::string>()));
    EXPECT_EQ(signature["input_shape"], nlohmann::json::parse("[2, 16, 12, 12]"));

    // What the other machine does, here on PoCL: tune_bundle_runner measures every candidate,
    // each once (with --devices 2 the second worker has no signature of its own).
    const std::string measured = (dir_ / "measured.jsonl").string();
    r = shell(std::string(CORTADO_BUNDLE_RUNNER) + " " + bundles + "/bundle-0 " + measured + " --devices 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::set<std::string> round_one;
    std::string fastest;  // the variant of the least median
    double least = 1e30;
    for (const TuningRecord &record : read_tuning_records(measured, true).records) {
        EXPECT_TRUE(record.measured()) << record.reason;
        EXPECT_LE(record.error, record.tolerance);
        EXPECT_GE(record.error, 0);
        std::string key = record.variant;
        for (const auto &[name, value] : record.knobs) key += " " + name + "=" + std::to_string(value);
        EXPECT_TRUE(round_one.insert(key).second) << "measured twice: " << key;
        if (record.median_ms < least) least = record.median_ms, fastest = record.variant;
    }
    ASSERT_EQ(round_one.size(), 3u) << r.output;
    // A rerun finds every candidate on record and measures nothing.
    r = shell(std::string(CORTADO_BUNDLE_RUNNER) + " " + bundles + "/bundle-0 " + measured);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("0 measured, 0 rejected"), std::string::npos) << r.output;
    std::ofstream(measured, std::ios::app) << "{\"op\": \"conv2d\"}\n";
    r = cortado("tune --import " + measured + " --db " + db_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("imported 3 records (0 rejected, 0 stale) for 1 op signatures"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find(measured + ":4: skipped"), std::string::npos) << r.output;
    const Result plan = cortado("info " + net_ + " --plan --target opencl-pocl --db " + db_);
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    EXPECT_NE(plan.output.find(fastest + " [" + db_ + ":"), std::string::npos) << plan.output;

    // The next round continues from the measurements: only new candidates.
    r = cortado("tune " + net_ + " --target opencl-pocl --prepare " + bundles + " --max-candidates 2 --db " + db_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("3 choices already measured"), std::string::npos) << r.output;
    std::ifstream second_file(bundles + "/bundle-0/tune.json");
    const nlohmann::json second = nlohmann::json::parse(second_file);
    ASSERT_EQ(second["signatures"][0]["candidates"].size(), 2u);
    for (const nlohmann::json &c : second["signatures"][0]["candidates"]) {
        std::string key = c["variant"].get<std::string>();
        for (const auto &[name, value] : c["knobs"].items()) key += " " + name + "=" + std::to_string(value.get<int>());
        EXPECT_FALSE(round_one.count(key)) << key;
    }
}

// tune_bundle_runner on two devices (PoCL's one, twice here) shares the op signatures between
// them, and rejects a library that computes something else: each signature's first candidate is
// swapped for the other's (another kernel size, other weights; the same output shape).
TEST_F(Tune, TheBundleRunnerSharesSignaturesAmongDevicesAndRejectsAWrongLibrary) {
    const std::string net = (dir_ / "two.prototxt").string();
    std::ofstream(net) << "name: \"two\"\ninput: \"data\"\ninput_shape { dim: 1 dim: 8 dim: 10 dim: 10 }\n"
                          "layer { name: \"a\" type: \"Convolution\" bottom: \"data\" top: \"a\"\n"
                          "  convolution_param { num_output: 8 kernel_size: 3 pad: 1 } }\n"
                          "layer { name: \"relu\" type: \"ReLU\" bottom: \"a\" top: \"a\" }\n"
                          "layer { name: \"b\" type: \"Convolution\" bottom: \"a\" top: \"b\"\n"
                          "  convolution_param { num_output: 8 kernel_size: 1 } }\n";
    const std::string bundles = (dir_ / "bundles").string(), bundle = bundles + "/bundle-0";
    Result r = cortado("tune " + net + " --target opencl-pocl --prepare " + bundles + " --max-candidates 2 --db " + db_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream manifest_file(bundle + "/tune.json");
    const nlohmann::json manifest = nlohmann::json::parse(manifest_file);
    ASSERT_EQ(manifest["signatures"].size(), 2u) << manifest.dump(1);
    const std::string first = bundle + "/" + manifest["signatures"][0]["candidates"][0]["library"].get<std::string>();
    const std::string second = bundle + "/" + manifest["signatures"][1]["candidates"][0]["library"].get<std::string>();
    fs::rename(first, first + ".swap");
    fs::rename(second, first);
    fs::rename(first + ".swap", second);

    const std::string measured = (dir_ / "measured.jsonl").string();
    r = shell(std::string(CORTADO_BUNDLE_RUNNER) + " " + bundle + " " + measured + " --devices 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("on GPU 0: 1 measured, 1 rejected"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("on GPU 1: 1 measured, 1 rejected"), std::string::npos) << r.output;
    int rejected = 0;
    for (const TuningRecord &record : read_tuning_records(measured, true).records)
        if (record.rejected) {
            rejected++;
            EXPECT_NE(record.reason.find("above the variant's tolerance"), std::string::npos) << record.reason;
            EXPECT_GT(record.error, 1e-2);
        }
    EXPECT_EQ(rejected, 2);

    EXPECT_EQ(shell(std::string(CORTADO_BUNDLE_RUNNER) + " " + bundle).exit_code, 2);
    EXPECT_EQ(shell(std::string(CORTADO_BUNDLE_RUNNER) + " " + bundle + " x.jsonl --devices 0").exit_code, 2);
    r = shell(std::string(CORTADO_BUNDLE_RUNNER) + " " + (dir_ / "nothing").string() + " x.jsonl");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("tune.json: cannot read the bundle's manifest"), std::string::npos) << r.output;
}

// After a schedule change voids a signature's records, the next tune proposes their fastest choice
// right after the default, rather than searching from the defaults alone.
TEST_F(Tune, ChoicesOfStaleRecordsAreRevisitedFirst) {
    const std::string signature = conv_signature(" --target opencl-pocl");
    ASSERT_FALSE(signature.empty());
    const nlohmann::json knobs = {{"rows", 2},      {"cols", 2},    {"channels", 4},           {"threads_x", 6},
                                  {"threads_c", 8}, {"split_k", 1}, {"target_threads", 65536}, {"registers", 64}};
    nlohmann::json stale = {{"op_signature", signature},
                            {"op", "conv2d"},
                            {"layer", "conv"},
                            {"variant", "gpu_register_tile"},
                            {"knobs", knobs},
                            {"median_ms", 0.1},
                            {"min_ms", 0.1},
                            {"max_ms", 0.1},
                            {"repetitions", 10},
                            {"error", 1e-7},
                            {"tolerance", 1e-5},
                            {"target", "opencl-pocl"},
                            {"family", "gpu"},
                            {"schedule_version", "000000000000"},
                            {"date", "2026-11-01"}};
    std::ofstream(db_) << stale.dump() << "\n";
    const std::string bundles = (dir_ / "bundles").string();
    const Result r =
        cortado("tune " + net_ + " --target opencl-pocl --prepare " + bundles + " --max-candidates 2 --db " + db_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream manifest_file(bundles + "/bundle-0/tune.json");
    const nlohmann::json candidates = nlohmann::json::parse(manifest_file)["signatures"][0]["candidates"];
    ASSERT_EQ(candidates.size(), 2u) << candidates.dump(1);
    EXPECT_EQ(candidates[1]["variant"], "gpu_register_tile") << candidates.dump(1);
    EXPECT_EQ(candidates[1]["knobs"], knobs) << candidates.dump(1);
}

// --restamp moves a stale record to the current schedule version and leaves the rest of the
// file as it was: a current record, a hand-written one, a record of a variant this build lacks.
TEST_F(Tune, RestampMovesStaleRecordsAndLeavesTheRestByteForByte) {
    nlohmann::json stale = {{"op_signature", "0123456789abcdef"},
                            {"op", "conv2d"},
                            {"layer", "conv"},
                            {"variant", "cpu_register_tile"},
                            {"knobs", {{"channel_block", 8}, {"vectors_x", 1}}},
                            {"median_ms", 0.1},
                            {"target", "host"},
                            {"schedule_version", "000000000000"}};
    nlohmann::json current = stale, unknown = stale;
    current["op_signature"] = "1123456789abcdef";
    current["schedule_version"] = schedule_version("conv2d", "cpu_register_tile");
    unknown["op_signature"] = "2123456789abcdef";
    unknown["variant"] = "cpu_retired_variant";
    const std::string hand_written =
        R"({"op_signature":"3123456789abcdef","op":"conv2d","variant":"cpu_register_tile"})";
    {
        std::ofstream out(db_);
        out << stale.dump() << "\n" << current.dump() << "\n\n" << hand_written << "\n" << unknown.dump() << "\n";
    }
    const Result r = cortado("tune --restamp " + db_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("restamped 1 of 4 records"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("no variant cpu_retired_variant of conv2d: left as it is"), std::string::npos) << r.output;
    std::ifstream in(db_);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    nlohmann::json restamped = stale;
    restamped["schedule_version"] = current["schedule_version"];
    EXPECT_EQ(lines, (std::vector<std::string>{restamped.dump(), current.dump(), "", hand_written, unknown.dump()}));
    EXPECT_EQ(cortado("tune --restamp " + db_ + " --db x").exit_code, 1);
}

// A 1x1 layer between two 3x3 ones runs in channel blocks; tuned (measured between 1x1
// convolutions, its own step timed), its records keep it there, and the network passes its check.
TEST_F(Tune, ABlockedLayerIsMeasuredAndStaysInBlocks) {
    const std::string chain = (dir_ / "chain.prototxt").string();
    const auto layer = [&](const std::string &name, const std::string &bottom, const std::string &params) {
        return "layer { name: \"" + name + "\" type: \"Convolution\" bottom: \"" + bottom + "\" top: \"" + name +
               "\"\n  convolution_param { num_output: 32 " + params +
               " weight_filler { type: \"xavier\" } } }\n"
               "layer { name: \"r" + name + "\" type: \"ReLU\" bottom: \"" + name + "\" top: \"" + name + "\" }\n";
    };
    std::ofstream(chain) << "name: \"chain\"\ninput: \"data\"\ninput_shape { dim: 1 dim: 32 dim: 10 dim: 10 }\n"
                         << layer("c1", "data", "kernel_size: 3 pad: 1") << layer("c2", "c1", "kernel_size: 1")
                         << layer("c3", "c2", "kernel_size: 3 pad: 1");
    const auto c2_line = [&](const std::string &plan) {
        std::istringstream lines(plan);
        std::string line;
        while (std::getline(lines, line))
            if (line.rfind("c2+rc2", 0) == 0) return line;
        return std::string();
    };
    const Result before = cortado("info " + chain + " --plan");
    ASSERT_EQ(before.exit_code, 0) << before.output;
    const std::regex blocked("reads nchw[0-9]+c, writes nchw[0-9]+c");
    ASSERT_TRUE(std::regex_search(c2_line(before.output), blocked)) << before.output;

    const Result r = cortado("tune " + chain + " --db " + db_ + " --budget 1 --max-candidates 3 --seed 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("not tuned"), std::string::npos) << r.output;
    std::istringstream fields(c2_line(before.output));
    std::string step, op, kernel, signature;
    fields >> step >> op >> kernel >> signature;
    int measured = 0;
    for (const TuningRecord &record : records())
        if (record.op_signature == signature && record.measured()) {
            measured++;
            EXPECT_GT(record.median_ms, 0);
        }
    EXPECT_GE(measured, 2) << r.output;
    const Result after = cortado("info " + chain + " --plan --db " + db_);
    ASSERT_EQ(after.exit_code, 0) << after.output;
    EXPECT_NE(c2_line(after.output).find("[" + db_ + ":"), std::string::npos) << after.output;
    EXPECT_TRUE(std::regex_search(c2_line(after.output), blocked)) << after.output;
    const Result run = cortado("run " + chain + " --check --db " + db_);
    EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST_F(Tune, BadInputGetsAClearError) {
    const struct {
        std::string args, message;
        int exit_code = 1;
    } cases[] = {
        {"tune " + net_ + " --budget 0", "--budget takes a number of minutes above 0 (at most a week), not '0'"},
        {"tune " + net_ + " --budget soon", "--budget takes a number of minutes above 0 (at most a week), not 'soon'"},
        {"tune " + net_ + " --budget inf", "not 'inf'"},
        {"tune " + net_ + " --max-tolerance 1e-5x",
         "--max-tolerance takes a relative L2 error above 0 such as 1e-5, not '1e-5x'"},
        {"tune --suite pictures", "unknown tuning suite 'pictures': give conv, sgemm or nets"},
        {"tune " + net_ + " --suite conv", "give a network or --suite, not both"},
        {"tune " + net_ + " --batch 1,x", "--batch takes whole numbers above 0 separated by commas, not '1,x'"},
        {"tune " + net_ + " --db " + (dir_ / "no" / "such" / "dir" / "db.jsonl").string(),
         "cannot write the tuning database"},
        {"tune " + net_ + " --jobs 0", "--jobs takes a whole number of at least 1, not 0", 2},
        {"tune " + net_ + " --max-candidates -1", "--max-candidates takes a whole number of at least 1, not -1", 2},
        {"tune --import " + (dir_ / "missing.jsonl").string(), "cannot read the tuning database"},
        {"tune " + net_ + " --import x.jsonl", "--import takes only --db"},
        {"tune " + net_ + " --db " + db_ + " --target arm-64-linux", "for another machine: --prepare DIR"},
    };
    for (const auto &c : cases) {
        const Result r = cortado(c.args);
        EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    }
}

}  // namespace
}  // namespace cortado::testing
