// The `cortado` command line as users and scripts meet it: exit codes, messages that name the
// file:line or the layer, weights written and read back, .npy input/output, blob dumps.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "Halide.h"
#include "compiler/loaded_network.h"
#include "frontend/compile_error.h"
#include "frontend/npy.h"
#include "tests/cli_process.h"
#include "tests/wrong_variant.h"
#include "tests/network_harness.h"
#include "tools/machine_load.h"
#include "tools/report_errors.h"

namespace cortado::testing {
namespace {
namespace fs = std::filesystem;

class Cli : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cortado-cli-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string &name) const { return (dir_ / name).string(); }
    std::string write(const std::string &name, const std::string &text) const {
        std::ofstream(path(name)) << text;
        return path(name);
    }
    fs::path dir_;
};

const char *kSmallNet =
    "name: \"small\"\n"
    "input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 9 dim: 9 }\n"
    "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\"\n"
    "  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: \"xavier\" } } }\n"
    "layer { name: \"relu1\" type: \"ReLU\" bottom: \"conv1\" top: \"conv1\" }\n"
    "layer { name: \"pool1\" type: \"Pooling\" bottom: \"conv1\" top: \"pool1\" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
    "layer { name: \"fc\" type: \"InnerProduct\" bottom: \"pool1\" top: \"fc\"\n"
    "  inner_product_param { num_output: 7 weight_filler { type: \"gaussian\" std: 0.5 } } }\n"
    "layer { name: \"prob\" type: \"Softmax\" bottom: \"fc\" top: \"prob\" }\n";

// A library compiled for batch 3 runs 1 to 3 images: fewer than 3 through the network compiled
// at batch 1, image by image, to the whole batch's results; 0 and 4 are refused by name. On the
// host and on PoCL (a device arena per network).
TEST_F(Cli, ForwardBatchRunsFewerImagesThanCompiled) {
    for (const std::string target : {"host", "opencl-pocl"}) {
        SCOPED_TRACE(target);
        const std::string net = write("small.prototxt", kSmallNet), dir = path(target);
        const Result r = cortado("compile " + net + " --batch 3 --shared --target " + target + " -o " + dir);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        std::ifstream header(dir + "/small.h");
        const std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
        EXPECT_NE(text.find("#define small_BATCH 3\n"), std::string::npos) << text;
        LoadedNetwork loaded(dir + "/libsmall.so", "small");
        loaded.create(nullptr, 5);
        const size_t image_in = 2 * 9 * 9, image_out = 7;
        std::vector<float> input(3 * image_in), whole(3 * image_out), part(3 * image_out, -1.0f);
        for (size_t i = 0; i < input.size(); i++) input[i] = float(std::sin(0.37 * double(i)));
        loaded.forward(input.data(), whole.data());
        for (int images : {1, 2, 3}) {
            std::fill(part.begin(), part.end(), -1.0f);
            loaded.forward_batch(images, input.data(), part.data());
            for (size_t i = 0; i < size_t(images) * image_out; i++)
                EXPECT_NEAR(part[i], whole[i], 1e-5f) << images << " images, output " << i;
            for (size_t i = size_t(images) * image_out; i < part.size(); i++)
                EXPECT_EQ(part[i], -1.0f) << "images past the count are not written";
        }
        // CUDA graphs are CUDA's alone (the GPU check covers them, tools/bench/gpu-check.sh).
        EXPECT_EQ(loaded.launch_mode(), "kernel by kernel");
        for (int images : {0, 4}) {
            try {
                loaded.forward_batch(images, input.data(), part.data());
                ADD_FAILURE() << images << " images ran";
            } catch (const CompileError &e) {
                EXPECT_NE(std::string(e.what()).find("runs 1 to 3"), std::string::npos) << e.what();
            }
        }
    }
}

TEST_F(Cli, MalformedPrototxtExitsWithFileAndLine) {
    const std::string net = write("bad.prototxt", "name: \"x\"\nlayer {\n  name: \"a\"\n  type: \n");
    const Result r = cortado("info " + net);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(net + ":5:"), std::string::npos) << r.output;
}

TEST_F(Cli, UnknownLayerTypeAndUnknownOption) {
    const std::string net =
        write("u.prototxt",
              std::string(kSmallNet) + "layer { name: \"odd\" type: \"Swish\" bottom: \"prob\" top: \"odd\" }\n");
    Result r = cortado("run " + net);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("layer 'odd' has type 'Swish'"), std::string::npos) << r.output;
    r = cortado("run " + write("ok.prototxt", kSmallNet) + " --frobnicate 3");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("unknown option --frobnicate"), std::string::npos) << r.output;
}

// Usage errors exit 2 and suggest the nearest valid word; help and --version exit 0.
TEST_F(Cli, HelpVersionTargetsAndUsageErrors) {
    Result r = cortado("--version");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("cortado 0."), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Halide 21."), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("host target x86-64-linux"), std::string::npos) << r.output;
    r = cortado("help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char *part :
         {"CORTADO_CACHE", "CORTADO_KNOBS", "CORTADO_HOME", "exit codes", "4 reference check failed"})
        EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
    r = cortado("run --help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("--warmup N"), std::string::npos) << r.output;
    EXPECT_EQ(cortado("help tune").output, cortado("tune -h").output);
    r = cortado("");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    r = cortado("runn x.prototxt");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("did you mean run?"), std::string::npos) << r.output;
    const std::string net = write("small.prototxt", kSmallNet);
    r = cortado("info " + net + " --batchh 2");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("did you mean --batch?"), std::string::npos) << r.output;
    for (const char *bad : {" --batch 0", " --batch -3", " --batch=0", " --input-shape 1x2x0x9"}) {
        r = cortado("info " + net + bad);
        EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    }
    EXPECT_EQ(cortado("info").exit_code, 2);
    r = cortado("info " + net + " --plan --target cuda-h10");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("did you mean cuda-h100?"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("opencl-pocl"), std::string::npos) << "the valid targets are listed\n" << r.output;
    r = cortado("targets");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char *name : {"host", "cuda-h100", "opencl-pocl", "arm-64-linux", "x86-64-avx512"})
        EXPECT_NE(r.output.find(std::string("\n") + name + " "), std::string::npos) << name << "\n" << r.output;
}

// info says why compile counts fewer steps than it lists layers.
TEST_F(Cli, InfoNamesWhatFusionFolds) {
    const Result r = cortado("info " + write("small.prototxt", kSmallNet));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("compile runs 4 steps for these 5 layers:\n"
                            "  1 layer is folded into the layer before: relu1 into conv1\n"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("view"), std::string::npos) << "no views here, so no line for them\n" << r.output;
}

// --opt=value and NxCxHxW shapes, as cortado prints them, are accepted.
TEST_F(Cli, EqualsOptionsAndShapesWrittenWithX) {
    const std::string net = write("small.prototxt", kSmallNet);
    const Result r = cortado("info " + net + " --input-shape=3x2x9x9");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("3x4x7x7"), std::string::npos) << r.output;
}

// Names need not be UTF-8 (protobuf's text format keeps any bytes): JSON output replaces the
// invalid ones rather than failing.
TEST_F(Cli, JsonReplacesBytesThatAreNotUtf8) {
    const std::string net = write("bytes.prototxt",
                                  "name: \"b\"\ninput: \"data\"\ninput_shape { dim: 1 dim: 2 }\n"
                                  "layer { name: \"r\\377\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n");
    const Result r = cortado("info " + net + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("\"r\xEF\xBF\xBD\""), std::string::npos) << r.output;
}

// Files of the wrong kind are named as such, and compile's -o must be a folder.
TEST_F(Cli, WrongKindsOfFilesAreNamed) {
    const std::string net = write("small.prototxt", kSmallNet);
    Result r = cortado("info " + dir_.string());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("is a directory, not a file"), std::string::npos) << r.output;
    r = cortado("run " + net + " --weights " + net);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("is not a binary caffemodel (it looks like text, a prototxt?)"), std::string::npos)
        << r.output;
    r = cortado("compile " + net + " -o " + net);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("is a file; -o names the folder"), std::string::npos) << r.output;
    r = cortado("run " + net + " --seed 2 --iterations 1 --save-weights " + path("w.caffemodel"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = cortado("info " + path("w.caffemodel"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("is not a text prototxt (it holds binary data; a .caffemodel goes to --weights)"),
              std::string::npos)
        << r.output;
    r = cortado("info " + write("notes.txt", "Shopping: milk, eggs\n"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("is not a Caffe prototxt (it starts with 'Shopping'"), std::string::npos) << r.output;
    r = cortado("info " + path("missing.prototxt"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("missing.prototxt: no such file"), std::string::npos) << r.output;
}

// The CLI links neither oneDNN nor OpenBLAS: only `bench` loads them, from the peers module in
// PREFIX/lib (BenchChecksEveryConvolutionAgainstOneDnn runs it). Without the module (a prefix that
// lacks it, as a machine without them builds it), the CLI compiles, runs and checks a network, and
// bench's CPU suites say what is missing.
TEST_F(Cli, CompilesAndRunsWithoutTheBenchPeers) {
    Result r = shell(std::string("ldd ") + CORTADO_BINARY);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("libdnnl"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("libopenblas"), std::string::npos) << r.output;
    const fs::path build = fs::path(CORTADO_BINARY).parent_path().parent_path(), prefix = path("prefix");
    fs::create_directories(prefix / "lib");
    fs::create_directory_symlink(build / "share", prefix / "share");
    fs::create_symlink(build / "lib" / "libcortado_runtime.a", prefix / "lib" / "libcortado_runtime.a");
    const std::string without = "CORTADO_HOME=" + prefix.string() + " " + CORTADO_BINARY;
    const std::string net = write("small.prototxt", kSmallNet);
    r = shell(without + " run " + net + " --check --iterations 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
    r = shell(without + " compile " + net + " -o " + path("lib"));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::exists(path("lib/libsmall.a"))) << r.output;
    r = shell(without + " bench conv --quick");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("built without oneDNN and OpenBLAS"), std::string::npos) << r.output;
}

// tools/bench/gpu_bench.py writes caffemodels through protobuf's Python runtime and the caffe_pb2 that
// this build generates from frontend/caffe.proto (found through PYTHONPATH): weights cortado
// wrote, read and written again in Python, give the same output.
TEST_F(Cli, PythonToolsWriteCaffemodelsWithTheSameSchema) {
    if (shell("/usr/bin/python3 -c 'import torch, google.protobuf'").exit_code != 0)
        GTEST_SKIP() << "/usr/bin/python3 has no torch or protobuf (tools/bootstrap.sh installs Debian's)";
    const std::string net = write("small.prototxt", kSmallNet);
    std::vector<float> input(2 * 9 * 9);
    for (size_t i = 0; i < input.size(); i++) input[i] = std::sin(float(i));
    std::string error;
    ASSERT_TRUE(write_npy(path("x.npy"), {1, 2, 9, 9}, input.data(), &error)) << error;
    const std::string in = " --input " + path("x.npy");
    Result r = cortado("run " + net + in + " --seed 3 --iterations 1 --save-weights " + path("a.caffemodel") +
                       " --output " + path("a.npy"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string script = write("rewrite.py",
                                     "import sys, torch\n"
                                     "sys.path.insert(0, '" CORTADO_SOURCE_DIR
                                     "/tools/bench')\n"
                                     "import gpu_bench\n"
                                     "net = gpu_bench.caffe_pb2_module().NetParameter()\n"
                                     "net.ParseFromString(open(sys.argv[1], 'rb').read())\n"
                                     "weights = {l.name: [torch.tensor(list(b.data)).reshape(list(b.shape.dim))\n"
                                     "                    for b in l.blobs] for l in net.layer if l.blobs}\n"
                                     "gpu_bench.write_caffemodel(sys.argv[2], weights)\n"
                                     "print(len(weights), 'layers')\n");
    r = shell("PYTHONPATH=" CORTADO_PYTHON_DIR " /usr/bin/python3 " + script + " " + path("a.caffemodel") + " " +
              path("b.caffemodel"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("2 layers"), std::string::npos) << r.output;
    r = cortado("run " + net + in + " --weights " + path("b.caffemodel") + " --iterations 1 --output " + path("b.npy"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<int64_t> shape_a, shape_b;
    std::vector<float> a, b;
    ASSERT_TRUE(read_npy(path("a.npy"), &shape_a, &a, &error)) << error;
    ASSERT_TRUE(read_npy(path("b.npy"), &shape_b, &b, &error)) << error;
    EXPECT_EQ(shape_a, shape_b);
    EXPECT_EQ(a, b);
}

// tools/bench/bench_median.py takes each side's median over the runs apart: a run where only the peer
// slowed down moves neither side's median. Cases that differ between runs are refused.
TEST_F(Cli, BenchMedianTakesEachSidesMedianOverTheRuns) {
    auto run_json = [&](const std::string &name, double ours, double peer, const std::string &case_name) {
        auto timing = [](double ms) {
            return "{\"median_ms\": " + std::to_string(ms) + ", \"min_ms\": " + std::to_string(ms) +
                   ", \"max_ms\": " + std::to_string(ms) + "}";
        };
        return write(name, "{\"suite\": \"nets\", \"rows\": [{\"name\": \"" + case_name +
                               "\", \"gflop\": 1, \"cortado\": " + timing(ours) + ", \"peer_timing\": " + timing(peer) +
                               ", \"relative_error\": 1e-7}]}");
    };
    // The medians come from different runs (cortado's from c, the peer's from b), and neither is
    // the run of the median ratio (a).
    const std::string a = run_json("a.json", 10, 8, "net b1"), b = run_json("b.json", 12, 9.5, "net b1"),
                      c = run_json("c.json", 11, 30, "net b1");
    const std::string tool = "/usr/bin/python3 " CORTADO_SOURCE_DIR "/tools/bench/bench_median.py ";
    Result r = shell(tool + path("m.json") + " " + a + " " + b + " " + c);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("cortado 11.00 ms, peer 9.50 ms, ratio 0.86"), std::string::npos) << r.output;
    r = shell("/usr/bin/python3 -c \"import json; r = json.load(open('" + path("m.json") +
              "'))['rows'][0]; print(r['cortado']['median_ms'], r['peer_timing']['median_ms'])\"");
    EXPECT_NE(r.output.find("11.0 9.5"), std::string::npos) << r.output;
    const std::string other = run_json("d.json", 10, 8, "other b1");
    r = shell(tool + path("n.json") + " " + a + " " + other);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("hold different cases"), std::string::npos) << r.output;
}

// `bench nets` writes each step's time beside the peer's for its layer; bench_median.py takes
// the per-step medians over runs, and bench_layers.py sums the steps by kind of layer.
TEST_F(Cli, BenchLayersSumsTheStepsByKindAgainstThePeer) {
    const auto timing = [](double ms) {
        const std::string t = std::to_string(ms);
        return "{\"median_ms\": " + t + ", \"min_ms\": " + t + ", \"max_ms\": " + t + "}";
    };
    const auto report = [&](const std::string &name, double b1_conv_ms, const std::string &b1_pool_name) {
        const std::string head = "\"gflop\": 1, \"cortado\": " + timing(4) + ", \"peer_timing\": " + timing(3) +
                                 ", \"relative_error\": 1e-7, \"layers\": [";
        return write(name, "{\"suite\": \"nets\", \"rows\": [{\"name\": \"net b1\", " + head +
                               "{\"layer\": \"conv1+relu1\", \"kind\": \"conv 3x3\", \"ms\": " +
                               std::to_string(b1_conv_ms) + ", \"peer_ms\": 1}, {\"layer\": \"" + b1_pool_name +
                               "\", \"kind\": \"Pooling\", \"ms\": 0.5}, {\"layer\": \"fc\", \"kind\": "
                               "\"inner product\", \"ms\": 1, \"peer_ms\": 2}]}, {\"name\": \"net b5\", " +
                               head +
                               "{\"layer\": \"conv1+relu1\", \"kind\": \"conv 3x3\", \"ms\": 6, "
                               "\"peer_ms\": 3}]}]}");
    };
    const std::string python = "/usr/bin/python3 " CORTADO_SOURCE_DIR "/tools/bench/";
    // The median of 2, 4 and 3 ms is 3: the conv 3x3 steps add up to 9 ms against the peer's 4,
    // and net b5's (6 against 3) loses the most.
    const std::string a = report("a.json", 2, "pool1"), b = report("b.json", 4, "pool1"),
                      c = report("c.json", 3, "pool1");
    Result r = shell(python + "bench_median.py " + path("m.json") + " " + a + " " + b + " " + c);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = shell(python + "bench_layers.py " + path("m.json") + " --top 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("conv 3x3                       2       9.00       4.00         0.44         5.00"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("no peer: Pooling               1       0.50       0.00            -         0.50"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("inner product                  1       1.00       2.00         2.00        -1.00"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("the 1 steps that lose the most:\n  net b5 "), std::string::npos) << r.output;
    r = shell(python + "bench_layers.py " + path("m.json") + " --batch 1");
    EXPECT_NE(r.output.find("1 cases;"), std::string::npos) << r.output;
    r = shell(python + "bench_layers.py " + path("m.json") + " --batch 20");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("no cases at batch 20"), std::string::npos) << r.output;
    // Runs of different networks do not merge step by step.
    const std::string other = report("d.json", 2, "pool_other");
    r = shell(python + "bench_median.py " + path("n.json") + " " + a + " " + other);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("the runs hold different steps"), std::string::npos) << r.output;
}

// A reference check that fails exits 4: the deliberately wrong variant of tests/wrong_variant.cc
// forced on the convolution, in the CLI built with it.
TEST_F(Cli, FailedReferenceCheckExits4) {
    const std::string net = write("small.prototxt", kSmallNet);
    const Result r = cortado_with_wrong_variant("run " + net + " --check --iterations 1",
                                                "CORTADO_KNOBS=conv2d.variant=" + std::string(kWrongVariant));
    EXPECT_EQ(r.exit_code, 4) << r.output;
    EXPECT_NE(r.output.find("FAIL"), std::string::npos) << r.output;
    // cortado itself does not know the variant.
    const Result plain =
        cortado("run " + net + " --check --iterations 1", "CORTADO_KNOBS=conv2d.variant=" + std::string(kWrongVariant));
    EXPECT_EQ(plain.exit_code, 1) << plain.output;
    EXPECT_NE(plain.output.find("has no variant '" + std::string(kWrongVariant) + "'"), std::string::npos)
        << plain.output;
}

// --check compares every blob, not the output alone: a Power of 0 after the wrong convolution
// gives ones, so the output matches the reference and the convolution's blob does not.
TEST_F(Cli, ReferenceCheckNamesTheFirstWrongBlob) {
    const std::string net = write(
        "masked.prototxt",
        "name: \"masked\"\ninput: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 9 dim: 9 }\n"
        "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\"\n"
        "  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: \"xavier\" } } }\n"
        "layer { name: \"ones\" type: \"Power\" bottom: \"conv1\" top: \"ones\" power_param { power: 0 } }\n");
    const Result wrong = cortado_with_wrong_variant("run " + net + " --check --iterations 1",
                                                    "CORTADO_KNOBS=conv2d.variant=" + std::string(kWrongVariant));
    EXPECT_EQ(wrong.exit_code, 4) << wrong.output;
    EXPECT_NE(wrong.output.find("reference check: relative L2 error 0 "), std::string::npos) << wrong.output;
    EXPECT_NE(wrong.output.find("the first beyond the limit is 'conv1'"), std::string::npos) << wrong.output;
    const Result right = cortado("run " + net + " --check --iterations 1");
    EXPECT_EQ(right.exit_code, 0) << right.output;
    EXPECT_NE(right.output.find("reference check, every blob: 3 blobs"), std::string::npos) << right.output;
}

// --no-fusion keeps the ReLU its own step (info --plan shows it), and the run still checks.
TEST_F(Cli, NoFusionKeepsEveryLayerAStep) {
    const std::string net = write("small.prototxt", kSmallNet);
    const Result fused = cortado("info " + net + " --plan");
    ASSERT_EQ(fused.exit_code, 0) << fused.output;
    EXPECT_NE(fused.output.find("conv1+relu1 "), std::string::npos) << fused.output;
    const Result plain = cortado("info " + net + " --plan --no-fusion");
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    EXPECT_EQ(plain.output.find("conv1+relu1"), std::string::npos) << plain.output;
    EXPECT_NE(plain.output.find("\nrelu1 "), std::string::npos) << plain.output;
    const Result run = cortado("run " + net + " --no-fusion --check --iterations 1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("reference check, every blob: 6 blobs"), std::string::npos) << run.output;
    const Result misplaced = cortado("info " + net + " --no-fusion");
    EXPECT_EQ(misplaced.exit_code, 2) << misplaced.output;
}

// A residual block at batch 2 on 28x28 maps, whose sum writes over the residual it adds:
// `info --plan` says so, and every blob, the overwritten residual included, checks.
TEST_F(Cli, ASumWrittenOverItsResidualChecksBlobByBlob) {
    const std::string net = write(
        "residual.prototxt",
        "input: \"data\"\ninput_shape { dim: 2 dim: 16 dim: 28 dim: 28 }\n"
        "layer { name: \"c0\" type: \"Convolution\" bottom: \"data\" top: \"c0\" convolution_param { num_output: 64 kernel_size: 1 } }\n"
        "layer { name: \"r0\" type: \"ReLU\" bottom: \"c0\" top: \"c0\" }\n"
        "layer { name: \"c1\" type: \"Convolution\" bottom: \"c0\" top: \"c1\" convolution_param { num_output: 32 kernel_size: 1 } }\n"
        "layer { name: \"c2\" type: \"Convolution\" bottom: \"c1\" top: \"c2\" convolution_param { num_output: 64 kernel_size: 1 } }\n"
        "layer { name: \"s\" type: \"Eltwise\" bottom: \"c2\" bottom: \"c0\" top: \"s\" }\n"
        "layer { name: \"r1\" type: \"ReLU\" bottom: \"s\" top: \"s\" }\n"
        "layer { name: \"c3\" type: \"Convolution\" bottom: \"s\" top: \"c3\" convolution_param { num_output: 16 kernel_size: 1 } }\n");
    const Result info = cortado("info " + net + " --plan");
    ASSERT_EQ(info.exit_code, 0) << info.output;
    EXPECT_NE(info.output.find("writes over the residual it adds"), std::string::npos) << info.output;
    const Result run = cortado("run " + net + " --check --iterations 1");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("reference check, every blob: "), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("PASS"), std::string::npos) << run.output;
}

// A prototxt without `name:` is named after its file; layers without fillers make one note.
TEST_F(Cli, NamelessNetworksTakeTheFileNameAndStandInNotesCollapse) {
    std::string text = "input: \"data\"\ninput_shape { dim: 1 dim: 2 dim: 6 dim: 6 }\n";
    std::string bottom = "data";
    for (int i = 0; i < 4; i++) {
        const std::string name = "c" + std::to_string(i);
        text += "layer { name: \"" + name + "\" type: \"Convolution\" bottom: \"" + bottom + "\" top: \"" + name +
                "\" convolution_param { num_output: 2 kernel_size: 1 } }\n";
        bottom = name;
    }
    const std::string net = write("tiny_v1.1.prototxt", text);
    Result r = cortado("compile " + net + " -o " + path("out"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::exists(path("out/tiny_v1_1.h"))) << r.output;
    r = cortado("run " + net + " --iterations 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(
        r.output.find("4 layers without fillers (c0, c1, c2, ...; a deploy prototxt) get random stand-in weights"),
        std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("has no fillers"), std::string::npos) << r.output;
}

TEST_F(Cli, SavedWeightsReloadToTheSameOutputAndPassTheCheck) {
    const std::string net = write("small.prototxt", kSmallNet);
    Result r = cortado("run " + net + " --seed 7 --save-weights " + path("w.caffemodel") + " --output " +
                       path("a.npy") + " --dump-dir " + path("blobs"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<int64_t> shape;
    std::vector<float> a, b, conv1;
    std::string error;
    ASSERT_TRUE(read_npy(path("a.npy"), &shape, &a, &error)) << error;
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 7}));
    ASSERT_TRUE(read_npy(path("blobs/conv1.npy"), &shape, &conv1, &error)) << error;
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 4, 7, 7}));
    for (float v : conv1) EXPECT_GE(v, 0.0f);  // the dump holds conv1 after its in-place ReLU

    r = cortado("run " + net + " --weights " + path("w.caffemodel") + " --seed 7");
    EXPECT_EQ(r.exit_code, 1) << "--weights and --seed together must be refused";
    // The same input through the seeded weights and through the saved file gives the same output.
    std::vector<float> input(2 * 9 * 9);
    for (size_t i = 0; i < input.size(); i++) input[i] = float(i % 13) / 13.0f - 0.5f;
    ASSERT_TRUE(write_npy(path("x.npy"), {1, 2, 9, 9}, input.data(), &error)) << error;
    r = cortado("run " + net + " --seed 7 --input " + path("x.npy") + " --output " + path("a.npy"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = cortado("run " + net + " --weights " + path("w.caffemodel") + " --input " + path("x.npy") + " --output " +
                path("b.npy") + " --check");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
    ASSERT_TRUE(read_npy(path("a.npy"), &shape, &a, &error)) << error;
    ASSERT_TRUE(read_npy(path("b.npy"), &shape, &b, &error)) << error;
    EXPECT_EQ(a, b);
}

// A BatchNorm and Scale folded into the convolution before them leave the fused network, not the
// file or the reference: the check reads their blobs for the unfused network it compares with.
TEST_F(Cli, SavedWeightsOfFoldedLayersPassTheCheck) {
    const std::string net = write("folded.prototxt", R"(name: "folded"
input: "data"
input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv" }
layer { name: "scale" type: "Scale" bottom: "conv" top: "conv" scale_param { bias_term: true } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
)");
    Result r = cortado("run " + net + " --seed 3 --save-weights " + path("folded.caffemodel"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = cortado("run " + net + " --weights " + path("folded.caffemodel") + " --check");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("every blob"), std::string::npos) << r.output;
}

TEST_F(Cli, WeightsOfTheWrongShapeNameTheLayerAndBothShapes) {
    const std::string net = write("small.prototxt", kSmallNet);
    ASSERT_EQ(cortado("run " + net + " --save-weights " + path("w.caffemodel")).exit_code, 0);
    std::string wider = kSmallNet;
    wider.replace(wider.find("num_output: 4"), 13, "num_output: 6");
    const Result r = cortado("run " + write("wider.prototxt", wider) + " --weights " + path("w.caffemodel"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("layer 'conv1' blob 0: expected shape 6x2x3x3, found 4x2x3x3"), std::string::npos)
        << r.output;
}

TEST_F(Cli, TruncatedAndForeignWeightFilesAreRefused) {
    const std::string net = write("small.prototxt", kSmallNet);
    ASSERT_EQ(cortado("run " + net + " --save-weights " + path("w.caffemodel")).exit_code, 0);
    const auto size = fs::file_size(path("w.caffemodel"));
    fs::resize_file(path("w.caffemodel"), size / 2);
    Result r = cortado("run " + net + " --weights " + path("w.caffemodel"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(path("w.caffemodel")), std::string::npos) << r.output;

    std::string renamed = kSmallNet;
    renamed.replace(renamed.find("name: \"conv1\""), 13, "name: \"convA\"");
    ASSERT_EQ(
        cortado("run " + write("other.prototxt", renamed) + " --save-weights " + path("other.caffemodel")).exit_code,
        0);
    r = cortado("run " + net + " --weights " + path("other.caffemodel"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("layer 'conv1' has no weights"), std::string::npos) << r.output;
}

TEST_F(Cli, CheckFiniteNamesTheFirstLayerThatOverflows) {
    const std::string net = write(
        "square.prototxt",
        "input: \"data\"\ninput_shape { dim: 1 dim: 4 }\n"
        "layer { name: \"double\" type: \"Eltwise\" bottom: \"data\" bottom: \"data\" top: \"d\" }\n"
        "layer { name: \"square\" type: \"Eltwise\" bottom: \"d\" bottom: \"d\" top: \"sq\" eltwise_param { operation: PROD } }\n"
        "layer { name: \"s\" type: \"Softmax\" bottom: \"sq\" top: \"s\" }\n");
    std::vector<float> input = {1.0f, 2.0f, 1e20f, 3.0f};
    std::string error;
    ASSERT_TRUE(write_npy(path("x.npy"), {1, 4}, input.data(), &error));
    Result r = cortado("run " + net + " --input " + path("x.npy") + " --check-finite");
    EXPECT_EQ(r.exit_code, 5) << r.output;
    EXPECT_NE(r.output.find("layer 'square' (blob 'sq') is not finite: 1 of 4 values, the first at flat index 2"),
              std::string::npos)
        << r.output;

    input[2] = std::numeric_limits<float>::quiet_NaN();
    ASSERT_TRUE(write_npy(path("x.npy"), {1, 4}, input.data(), &error));
    r = cortado("run " + net + " --input " + path("x.npy") + " --check-finite --output " + path("y.npy"));
    EXPECT_EQ(r.exit_code, 5) << r.output;
    EXPECT_NE(r.output.find("the input 'data' is not finite"), std::string::npos) << r.output;
    std::vector<int64_t> shape;
    std::vector<float> out;
    ASSERT_TRUE(read_npy(path("y.npy"), &shape, &out, &error)) << error;
    for (float v : out) EXPECT_TRUE(std::isnan(v)) << "a NaN input must reach the output";
    // --check alone on the same input: a non-finite output is exit 5, not a failed error bound.
    r = cortado("run " + net + " --input " + path("x.npy") + " --check --iterations 1");
    EXPECT_EQ(r.exit_code, 5) << r.output;
    EXPECT_NE(r.output.find("4 output values are NaN or infinite"), std::string::npos) << r.output;

    input[2] = 0.5f;
    ASSERT_TRUE(write_npy(path("x.npy"), {1, 4}, input.data(), &error));
    r = cortado("run " + net + " --input " + path("x.npy") + " --check-finite");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("every blob is finite"), std::string::npos) << r.output;
}

TEST_F(Cli, BenchChecksEveryConvolutionAgainstOneDnnBeforeTimingIt) {
    const std::string csv =
        write("set.csv",
              "batch,in_chan,in_h,in_w,out_chan,kernel_h,kernel_w,stride_h,stride_w,pad_h,pad_w,out_h,out_w\n"
              "3,5,11,9,7,3,3,2,2,1,1,6,5\n"
              "3,16,7,7,24,1,1,1,1,0,0,7,7\n"
              "2,3,8,8,4,3,3,1,1,0,0,6,6\n");
    const Result r = cortado("bench conv --set " + csv + " --batch 3 --iterations 1 --json " + path("b.json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream json(path("b.json"));
    std::stringstream text;
    text << json.rdbuf();
    size_t rows = 0;
    for (size_t at = text.str().find("\"relative_error\""); at != std::string::npos;
         at = text.str().find("\"relative_error\"", at + 1))
        rows++;
    EXPECT_EQ(rows, 2u) << text.str();  // the batch-2 row is filtered out
    EXPECT_NE(r.output.find("oneDNN"), std::string::npos) << r.output;
}

TEST_F(Cli, BenchGroupedConvolutionsRooflineAndNetworks) {
    // A 14th column gives the group; a description with a roofline adds "% of roofline".
    const std::string csv = write("grouped.csv", "header\n1,8,9,9,12,3,3,1,1,1,1,9,9,4\n");
    const std::string target = write("roof.target", "halide_target = host\npeak_gflops = 100\nbandwidth_gbs = 10\n");
    Result r = cortado("bench conv --set " + csv + " --iterations 1 --target " + target);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("g4 on 9x9"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Roofline of "), std::string::npos) << r.output;
    EXPECT_NE(cortado("bench conv --set " + write("bad.csv", "header\n1,8,9,9,12,3,3,1,1,1,1,9,9,3\n"))
                  .output.find("malformed row"),
              std::string::npos);  // 8 channels do not split into 3 groups

    const std::string models = shared_models_dir();
    if (models.empty()) GTEST_SKIP() << "../shared/models is absent; the nets suite reads it";
    r = cortado("bench nets --quick --iterations 1 --batch 1 --models " + models + " --json " + path("nets.json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("oneDNN conv+IP sum"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("| alexnet b1 |"), std::string::npos) << r.output;
    std::ifstream json(path("nets.json"));
    std::stringstream text;
    text << json.rdbuf();
    EXPECT_NE(text.str().find("\"peer_timing\""), std::string::npos);
    // Each step with its kind; the peer's layers add up to its sum; pooling and LRN have no peer.
    r = shell("/usr/bin/python3 -c \"import json; r = [r for r in json.load(open('" + path("nets.json") +
              "'))['rows'] if r['name'] == 'alexnet b1'][0]; s = {l['layer']: l for l in r['layers']}; "
              "print(s['conv1+relu1']['kind'], 'peer_ms' in s['conv1+relu1'], s['norm1']['kind'], "
              "'peer_ms' in s['norm1'], s['pool1']['kind'], round(sum(l.get('peer_ms', 0) for l in r['layers']) "
              "/ r['peer_timing']['median_ms'], 6))\"");
    EXPECT_NE(r.output.find("conv 11x11 s4 True LRN False Pooling 1.0"), std::string::npos) << r.output;
    r = shell("/usr/bin/python3 " CORTADO_SOURCE_DIR "/tools/bench/bench_layers.py " + path("nets.json") +
              " --batch 1");
    EXPECT_NE(r.output.find("\nconv 5x5 g2 "), std::string::npos) << r.output;
}

TEST_F(Cli, BenchPrepareForAGpuTakesTheNetsAndBatchesAsked) {
    const std::string models = shared_models_dir();
    if (models.empty()) GTEST_SKIP() << "../shared/models is absent; the nets suite reads it";
    const std::string dir = path("prepared");
    Result r =
        cortado("bench nets --target opencl-pocl --models " + models + " --net lenet --batch 1,2 --prepare " + dir);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream json(dir + "/nets.json");
    std::stringstream text;
    text << json.rdbuf();
    EXPECT_NE(text.str().find("\"lenet b1\""), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("\"lenet b2\""), std::string::npos) << text.str();
    EXPECT_EQ(text.str().find("alexnet"), std::string::npos) << text.str();
    EXPECT_TRUE(fs::exists(dir + "/nets-1/libnet.so"));
    EXPECT_FALSE(fs::exists(dir + "/nets-2"));
    r = cortado("bench nets --target opencl-pocl --models " + models + " --net lenett --prepare " + dir);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("has no network 'lenett'"), std::string::npos) << r.output;
    r = cortado("bench conv --target opencl-pocl --batch 1,5 --prepare " + dir);
    EXPECT_NE(r.output.find("the conv suite takes one batch"), std::string::npos) << r.output;
    // --no-fusion: each case's unfused build beside the fused one, for gpu_bench.py to time both.
    const std::string unfused = path("prepared-unfused");
    r = cortado("bench nets --target opencl-pocl --models " + models + " --net lenet --batch 1 --no-fusion --prepare " +
                unfused);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream unfused_json(unfused + "/nets.json");
    std::stringstream unfused_text;
    unfused_text << unfused_json.rdbuf();
    EXPECT_NE(unfused_text.str().find("\"unfused_library\": \"nets-0/unfused/libnet.so\""), std::string::npos)
        << unfused_text.str();
    EXPECT_TRUE(fs::exists(unfused + "/nets-0/unfused/libnet.so"));
    EXPECT_EQ(text.str().find("unfused_library"), std::string::npos) << text.str();
    r = cortado("bench conv --target opencl-pocl --quick --no-fusion --prepare " + unfused);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--no-fusion goes with nets and exported"), std::string::npos) << r.output;
}

TEST_F(Cli, InputOfTheWrongShapeIsRefused) {
    std::vector<float> input(10, 1.0f);
    std::string error;
    ASSERT_TRUE(write_npy(path("x.npy"), {1, 10}, input.data(), &error));
    const Result r = cortado("run " + write("small.prototxt", kSmallNet) + " --input " + path("x.npy"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("shape 1x10 but the network takes 1x2x9x9"), std::string::npos) << r.output;
}

TEST_F(Cli, InfoJsonAndCompileOutputs) {
    const std::string net = write("small.prototxt", kSmallNet);
    Result r = cortado("info " + net + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("\"name\": \"conv1\""), std::string::npos);
    // 196 outputs x (2 x 18 multiply-add flops + 1 bias add)
    EXPECT_NE(r.output.find("\"flops\": 7252"), std::string::npos) << r.output;
    r = cortado("compile " + net + " --name small --batch 3 -o " + path("out"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::exists(path("out/small.h")));
    EXPECT_TRUE(fs::exists(path("out/libsmall.a")));
    std::ifstream header(path("out/small.h"));
    std::stringstream text;
    text << header.rdbuf();
    EXPECT_NE(text.str().find("#define small_INPUT_COUNT 486"), std::string::npos);  // 3*2*9*9
    r = cortado("compile " + net + " --name 9lives -o " + path("out"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("must be a C identifier"), std::string::npos) << r.output;
}

// Deliberate background load: two spinning shells while it lives, each also stopped by
// `timeout` after a minute.
class BusyCores {
  public:
    explicit BusyCores(const fs::path &dir) {
        const std::string script = (dir / "busy.sh").string();
        std::ofstream(script) << "for i in 1 2; do timeout 60 sh -c 'while :; do :; done' >/dev/null 2>&1 &\n"
                                 "pids=\"$pids $!\"; done; echo $pids\n";
        FILE *pipe = popen(("sh " + script).c_str(), "r");
        char pids[256] = {0};
        if (!fgets(pids, sizeof pids, pipe)) pids[0] = 0;
        pclose(pipe);
        pids[strcspn(pids, "\n")] = 0;
        pids_ = pids;
    }
    ~BusyCores() {
        if (!pids_.empty()) std::system(("kill " + pids_ + " 2>/dev/null").c_str());
    }

  private:
    std::string pids_;
};

// Under deliberate background load, bench measures a case three times, then marks it unstable
// in the table, the JSON and the summary.
TEST_F(Cli, BenchMarksCasesMeasuredUnderLoad) {
    const std::string csv = write("set.csv", "header\n1,8,12,12,8,3,3,1,1,1,1,12,12\n");
    Result r;
    {
        const BusyCores load(dir_);
        r = cortado("bench conv --set " + csv + " --iterations 30 --json " + path("b.json"));
    }
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("| yes: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Warning: 1 of 1 cases stayed unstable"), std::string::npos) << r.output;
    const nlohmann::json report = nlohmann::json::parse(std::ifstream(path("b.json")));
    EXPECT_NE(report.at("rows").at(0).value("unstable", ""), "") << report.dump();
    EXPECT_EQ(report.at("unstable_rows"), 1) << report.dump();
}

// `run` reports throughput, mean, percentiles and a per-layer share; --json holds the record.
// Under deliberate background load (two busy processes) the record says the timing is unstable.
TEST_F(Cli, RunTimingRecordAndTheInstabilityWarning) {
    const std::string net = write("small.prototxt", kSmallNet);
    Result r = cortado("run " + net + " --warmup 2 --iterations 7 --json " + path("quiet.json"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char *part : {"images/s", "mean", "p90", "p99", "share", "GFLOP/s", "2 warm-up and 7 timed runs"})
        EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
    nlohmann::json record = nlohmann::json::parse(std::ifstream(path("quiet.json")));
    EXPECT_EQ(record.at("runs_ms").size(), 7u);
    EXPECT_EQ(record.at("batch"), 1);
    EXPECT_GT(record.at("images_per_s").get<double>(), 0);
    EXPECT_LE(record.at("min_ms").get<double>(), record.at("median_ms").get<double>());
    EXPECT_LE(record.at("median_ms").get<double>(), record.at("p90_ms").get<double>());
    EXPECT_FALSE(record.at("layers").empty());
    r = cortado("run " + net + " --warmup 0 --iterations 3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("0 warm-up and 3 timed runs"), std::string::npos) << r.output;
    EXPECT_EQ(cortado("run " + net + " --warmup -1").exit_code, 2);

    {
        const BusyCores load(dir_);
        // A layer of ~0.3 ms, 3000 times: a second or more, long enough for /proc/stat's ticks.
        const std::string heavier = write("heavier.prototxt",
                                          "input: \"data\"\ninput_shape { dim: 1 dim: 8 dim: 96 dim: 96 }\n"
                                          "layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\" "
                                          "convolution_param { num_output: 16 kernel_size: 3 } }\n");
        r = cortado("run " + heavier + " --iterations 3000 --json " + path("busy.json"));
    }
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("warning: unstable timing"), std::string::npos) << r.output;
    record = nlohmann::json::parse(std::ifstream(path("busy.json")));
    EXPECT_NE(record.at("unstable").get<std::string>(), "") << record.dump();
    EXPECT_GT(record.at("other_busy_cores").get<double>(), 0.25) << record.dump();
}

// The instability rule on made-up timings, where real load can only be provoked: a spread of the
// 90th percentile beyond 1.5x the fastest, and other processes' work beyond a quarter of a core
// over a window long enough for /proc/stat's 10 ms ticks.
TEST(Timing, InstabilityFromASimulatedSpread) {
    EXPECT_EQ(instability({1.0, 1.1, 1.2, 1.3, 1.4}, 0), "");
    std::vector<double> runs(20, 1.0);
    runs[19] = 9.0;  // one preemption in 20 runs is no spread
    EXPECT_EQ(instability(runs, 0), "");
    runs[18] = runs[17] = 1.6;
    EXPECT_EQ(instability(runs, 0), "the 90th percentile run took 1.6x the fastest");
    EXPECT_EQ(instability({1.0, 5.0}, 0), "") << "two runs say nothing of a spread";
    EXPECT_EQ(instability({1.0, 1.0, 1.0}, 0.3), "other processes kept 0.3 cores busy");
    EXPECT_EQ(instability({1.0, 2.0, 2.0}, 0.8),
              "the 90th percentile run took 2.0x the fastest; other processes kept 0.8 cores busy");

    const CpuTimes before{100.0, 10.0, 1000.0};
    EXPECT_DOUBLE_EQ(other_busy_cores(before, {102.0, 11.0, 1002.0}), 0.5);  // 2 s busy, 1 s ours, over 2 s
    EXPECT_DOUBLE_EQ(other_busy_cores(before, {101.0, 11.0, 1001.0}), 0.0);  // all of it ours
    EXPECT_DOUBLE_EQ(other_busy_cores(before, {100.1, 10.0, 1000.2}), 0.0);  // too short to tell
}

// Every float in `info --json` reads back as the float cortado computes with.
TEST_F(Cli, InfoJsonFloatsRoundTripExactly) {
    const std::string net = write(
        "floats.prototxt",
        "input: \"data\"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"
        "layer { name: \"norm\" type: \"LRN\" bottom: \"data\" top: \"norm\" lrn_param { local_size: 3 alpha: 1.23456789e-4 beta: 0.7654321 } }\n"
        "layer { name: \"leaky\" type: \"ReLU\" bottom: \"norm\" top: \"leaky\" relu_param { negative_slope: 0.123456789 } }\n");
    const Result r = cortado("info " + net + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json json = nlohmann::json::parse(r.output);
    const nlohmann::json &layers = json.at("layers");
    ASSERT_EQ(layers.size(), 2u) << r.output;
    EXPECT_EQ(float(layers[0]["params"]["alpha"].get<double>()), 1.23456789e-4f) << r.output;
    EXPECT_EQ(float(layers[0]["params"]["beta"].get<double>()), 0.7654321f) << r.output;
    EXPECT_EQ(float(layers[1]["params"]["negative_slope"].get<double>()), 0.123456789f) << r.output;
}

// `info --plan` shows each step's variant, knobs and their sources, and shared kernels; a tuning
// record found there, keyed by the printed op signature, changes the compiled kernel.
TEST_F(Cli, InfoPlanShowsChoicesSourcesAndSharedKernels) {
    const std::string net = write(
        "twice.prototxt",
        "name: \"twice\"\ninput: \"data\"\ninput_shape { dim: 1 dim: 4 dim: 9 dim: 9 }\n"
        "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\" convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }\n"
        "layer { name: \"relu1\" type: \"ReLU\" bottom: \"conv1\" top: \"conv1\" }\n"
        "layer { name: \"conv2\" type: \"Convolution\" bottom: \"conv1\" top: \"conv2\" convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }\n"
        "layer { name: \"relu2\" type: \"ReLU\" bottom: \"conv2\" top: \"conv2\" }\n");
    Result r = cortado("info " + net + " --plan --target cuda-h100");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("schedule family gpu"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("per forward: 2 kernel launches; activations "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("replays them as one CUDA graph"), std::string::npos) << r.output;
    std::istringstream lines(r.output);
    std::string line, conv_line;
    while (std::getline(lines, line))
        if (line.rfind("conv1+relu1", 0) == 0) conv_line = line;
    std::istringstream columns(conv_line);
    std::string step, op, kernel, op_signature, variant;
    columns >> step >> op >> kernel >> op_signature >> variant;
    EXPECT_EQ(op, "conv2d");
    EXPECT_EQ(variant, "gpu_register_tile");
    EXPECT_NE(conv_line.find("registers=128;"), std::string::npos) << conv_line;  // the description's budget
    EXPECT_NE(r.output.find("shares its kernel with conv2+relu2"), std::string::npos) << r.output;

    const std::string db = write(
        "tuned.jsonl", "{\"op_signature\": \"" + op_signature + "\", \"op\": \"conv2d\", \"knobs\": {\"rows\": 2}}\n");
    r = cortado("info " + net + " --plan --target cuda-h100 --db " + db);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("rows=2 [" + db + ":1]"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(kernel), std::string::npos) << "the record must change the kernel signature";

    r = cortado("info " + net + " --plan --target x86-64-avx2");
    EXPECT_NE(r.output.find("schedule family x86, tasks cut for 2 cores"), std::string::npos) << r.output;
    // A reduction of 4 x 3 x 3 is too shallow for channel lanes (kCpuChannelLanesMinDepth).
    EXPECT_NE(r.output.find("cpu_register_tile    channel_block=6 vectors_x=2;"), std::string::npos) << r.output;
    r = cortado("info " + net + " --plan --target host-generic");
    EXPECT_NE(r.output.find("schedule family cpu"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cpu_register_tile    channel_block="), std::string::npos) << r.output;
    r = cortado("info " + net + " --target cuda-h100");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--target, --db, --untuned, --no-transfer and --no-fusion go with --plan"),
              std::string::npos)
        << r.output;
}

// A machine without records of its own, like the Zen 4 VM but for Zen 5's instructions, takes the
// shipped Zen 4 records for LeNet's layers and says so; --no-transfer keeps to its own.
TEST_F(Cli, InfoPlanNamesTheRecordsTransferredFromANearMachine) {
    const std::string models = shared_models_dir();
    if (models.empty()) GTEST_SKIP() << "../shared/models is absent; LeNet is read from it";
    const std::string target = write(
        "zen5-like.target",
        "halide_target = x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-avx512_zen4-avx512_zen5-f16c-"
        "fma-sse41\ncores = 2\nfma_units = 1\nl1d_kib = 32\nl2_kib = 1024\nl3_kib = 32768\n");
    const std::string net = models + "/lenet.prototxt";
    Result r = cortado("info " + net + " --plan --batch 1 --target " + target);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("machine model: 32 vector registers, 1 FMA pipes of latency 4, L1d 32 KiB"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("(transferred from epyc-2core-avx512-zen4)]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("kernels take tuning records measured on epyc-2core-avx512-zen4 (machine distance 0"),
              std::string::npos)
        << r.output;
    r = cortado("info " + net + " --plan --batch 1 --no-transfer --target " + target);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("transferred"), std::string::npos) << r.output;
}

// e_machine of every ELF image inside `path`: the file's own header first, then any embedded one
// (HVX offload links the DSP code into a Hexagon shared object stored inside the ARM library).
std::vector<int> elf_machines(const std::string &path) {
    std::ifstream file(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<int> machines;
    for (size_t at = bytes.find("\x7f"
                                "ELF");
         at != std::string::npos && at + 20 <= bytes.size(); at = bytes.find("\x7f"
                                                                             "ELF",
                                                                             at + 1))
        machines.push_back(static_cast<unsigned char>(bytes[at + 18]) | static_cast<unsigned char>(bytes[at + 19])
                                                                            << 8);
    return machines;
}

constexpr int kElfAarch64 = 183, kElfHexagon = 164;

TEST_F(Cli, CrossTargetsBuildForTheirMachineAndRefuseToRunHere) {
    const std::string net = write("small.prototxt", kSmallNet);
    Result r = cortado("compile " + net + " --target arm-64-linux --shared -o " + path("arm"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<int> machines = elf_machines(path("arm/libsmall.so"));
    ASSERT_FALSE(machines.empty());
    EXPECT_EQ(machines[0], kElfAarch64);
    EXPECT_EQ(std::find(machines.begin(), machines.end(), kElfHexagon), machines.end());

    r = cortado("run " + net + " --target arm-64-linux");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("cannot execute code for arm-64-linux"), std::string::npos) << r.output;

    r = cortado("compile " + net + " --target hexagon-hvx --shared -o " + path("hvx"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    machines = elf_machines(path("hvx/libsmall.so"));
    ASSERT_FALSE(machines.empty());
    EXPECT_EQ(machines[0], kElfAarch64);
    EXPECT_NE(std::find(machines.begin(), machines.end(), kElfHexagon), machines.end())
        << "no Hexagon code linked into the HVX library";

    r = cortado("compile " + net + " --target arm-64-linux-hvx -o " + path("old-hvx"));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("need hvx_v68"), std::string::npos) << r.output;
}

// Halide's errors are not std::exceptions: uncaught, they would end cortado with an abort (134).
TEST(TopLevelErrors, EveryExceptionBecomesAMessageAndAnExitCode) {
    struct Case {
        std::function<int()> command;
        int exit_code;
        std::string message;
    };
    const Case cases[] = {
        {[] { return 4; }, 4, ""},
        {[]() -> int { throw CompileError("net.prototxt:3: bad"); }, 1, "cortado: error: net.prototxt:3: bad\n"},
        {[]() -> int { throw std::runtime_error("disk full"); }, 3, "cortado: internal error: disk full\n"},
        {[]() -> int { throw Halide::InternalError("lowering failed"); }, 3,
         "cortado: internal error in Halide: lowering failed\n"},
        {[]() -> int { throw Halide::CompileError("bad schedule"); }, 3,
         "cortado: internal error in Halide: bad schedule\n"},
        {[]() -> int { throw 7; }, 3, "cortado: internal error: an exception of unknown type\n"},
    };
    for (const Case &c : cases) {
        ::testing::internal::CaptureStderr();
        const int exit_code = run_reporting_errors(c.command);
        EXPECT_EQ(::testing::internal::GetCapturedStderr(), c.message);
        EXPECT_EQ(exit_code, c.exit_code) << c.message;
    }
}

TEST_F(Cli, StrictFloatTargetsCompileRunAndPassTheCheck) {
    const std::string net = write("small.prototxt", kSmallNet);
    const Result r = cortado("run " + net + " --target x86-64-linux-avx-avx2-f16c-fma-sse41-strict_float --check");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace cortado::testing
