#include "tools/usage.h"

#include <map>

#include "Halide.h"
#include "git_describe.h"  // generated at build time (cmake/git_describe.cmake)

namespace cortado {
namespace {

const char *kTarget =
    "  --target T           host (default), a name from `cortado targets`, a path to a .target\n"
    "                       file, or a Halide target string\n";
const char *kShape =
    "  --batch N            the input's first dimension (overrides the prototxt's)\n"
    "  --input-shape S      the whole input shape: N,C,H,W or NxCxHxW\n";
const char *kNoFusion = "  --no-fusion          every layer its own step: nothing fused or folded into its producer\n";
const char *kTuning =
    "  --db FILE            tuning records to use first (also $CORTADO_CACHE/tuning.jsonl and\n"
    "                       the shipped targets/tuning/*.jsonl)\n"
    "  --untuned            ignore every tuning record: the default rules only\n"
    "  --no-transfer        only records measured on this exact target (by default a layer\n"
    "                       without one takes the nearest machine's at the same ISA level)\n";

const char *kPrecision =
    "  --precision P        fp32 (default), fp16 (every convolution the target can run in half\n"
    "                       precision; docs/precision.md) or int8\n"
    "  --qparams FILE       int8: the calibration `cortado quantize` wrote (implies --precision int8)\n";

const std::map<std::string, std::string> &usages() {
    static const std::map<std::string, std::string> texts = {
        {"info", std::string("cortado info NET.prototxt [options]\n"
                             "  Per layer: type, top shape, FLOPs, parameters, arithmetic intensity.\n"
                             "Output:\n"
                             "  --json               the whole graph as JSON (floats exact)\n"
                             "  --plan               per step: op, kernel, variant and knobs, and their sources\n"
                             "Network:\n") +
                     kShape + "Plan (with --plan):\n" + kNoFusion + kPrecision + kTarget + kTuning},
        {"compile", std::string("cortado compile NET.prototxt -o DIR [options]\n"
                                "  Writes DIR/NAME.h and DIR/libNAME.a with NAME_create/NAME_forward.\n"
                                "Output:\n"
                                "  -o, --output-dir DIR where the header and library go (a folder)\n"
                                "  --name NAME          the C prefix (default: the net's name, else the file's)\n"
                                "  --shared             also link DIR/libNAME.so\n"
                                "  --embed-weights      link the weights into the library, for NAME_create_embedded()\n"
                                "  --weights W          the .caffemodel to embed (an ONNX model carries its own)\n"
                                "Network:\n") +
                        kShape + kNoFusion + "Precision:\n" + kPrecision + "Target:\n" + kTarget + kTuning},
        {"run", std::string("cortado run NET.prototxt [options]\n"
                            "  Compiles for this machine, runs and times the network.\n"
                            "Weights and data:\n"
                            "  --weights W          a binary .caffemodel\n"
                            "  --seed S             weights from the prototxt's fillers, and the input (default 1)\n"
                            "  --save-weights OUT   write the seeded weights as a .caffemodel\n"
                            "  --input X.npy        the input (float32, the network's input shape)\n"
                            "  --output Y.npy       write the output\n"
                            "  --dump-dir D         write every blob as D/<blob>.npy\n"
                            "Timing:\n"
                            "  --warmup N           untimed runs first (default 1; 0 times the first, cold run)\n"
                            "  --iterations K       timed runs (default 10)\n"
                            "  --json F             the timing record (per run and per layer) as JSON\n"
                            "Checks:\n"
                            "  --check              compare the output with the double-precision reference (exit 4)\n"
                            "  --check-finite       name the first blob holding a NaN or an infinity (exit 5)\n"
                            "Network:\n") +
                    kShape + kNoFusion + "Precision:\n" + kPrecision + "Target:\n" + kTarget + kTuning},
        {"quantize", std::string("cortado quantize NET --calibrate IMAGES.npy -o NET.qparams [options]\n"
                                 "  Runs the fp32 network here on the images and records, for every convolution\n"
                                 "  that can run in int8 on the target, how its input is quantized (a target\n"
                                 "  that cannot run here, a GPU or ARM64 or HVX, is calibrated on the host).\n"
                                 "  --calibrate X.npy    float32 images, N x the network's input shape without batch\n"
                                 "  -o, --output-dir F   the .qparams file to write\n"
                                 "  --weights W          the trained .caffemodel (an ONNX model carries its own)\n"
                                 "  --method M           minmax (default), percentile or entropy\n"
                                 "  --percentile P       percentile: the share of values kept (default 99.99)\n"
                                 "  --input-shape S      a network without input dims (a data layer): N,C,H,W\n"
                                 "  --every-layer        also layers with fewer than 64 products per input value,\n"
                                 "                       where int8 is slower than fp32\n"
                                 "Target:\n") +
                         kTarget},
        {"tune", std::string("cortado tune NET.prototxt [options]\n"
                             "cortado tune --suite conv|sgemm|nets [--quick] [--set CSV] [--models DIR] [options]\n"
                             "  Searches variants and knobs per op signature, measured here; records go to the\n"
                             "  tuning database that compile, run, info and bench read.\n"
                             "Search:\n"
                             "  --budget MINUTES     the time to spend (default 10)\n"
                             "  --jobs J             parallel compiles (default: the cores)\n"
                             "  --max-candidates K   candidates per op signature\n"
                             "  --max-tolerance E    leave out variants less exact than E\n"
                             "  --seed S             the search's random seed (default 1)\n"
                             "  --db FILE            where records go (default $CORTADO_CACHE/tuning.jsonl)\n"
                             "Another machine's GPU:\n"
                             "  --prepare DIR        compile the next candidates into bundles for tune_bundle_runner\n"
                             "  --import FILE        add the records measured there\n"
                             "Code changes:\n"
                             "  --restamp FILE       move FILE's records to this build's schedule versions, once\n"
                             "                       tools/kernel-identity.py shows their kernels unchanged\n"
                             "Precision:\n"
                             "  --precision P        fp32 (default), fp16 or int8: tune the layers in that precision\n"
                             "  --qparams FILE       int8: tune the int8 layers `cortado quantize` chose\n"
                             "Network:\n"
                             "  --batch N[,N...]     one or more batch sizes\n"
                             "  --input-shape S      N,C,H,W or NxCxHxW\n"
                             "Target:\n") +
                     kTarget},
        {"bench", std::string("cortado bench conv|sgemm|nets|exported [options]\n"
                              "  cortado against oneDNN / OpenBLAS (exported: onnxruntime) on the same data,\n"
                              "  outputs checked first. exported: torchvision's networks, exported to ONNX.\n"
                              "Cases:\n"
                              "  --quick              a subset\n"
                              "  --batch N            conv: one batch; nets, exported: a list (default 1,5,20)\n"
                              "  --net NAME[,NAME]    nets, exported: only these networks\n"
                              "  --set CSV            conv: the cases (default: Boda's 204 + Overfeat)\n"
                              "  --models DIR         nets: the prototxt folder; exported: the .onnx folder\n"
                              "                       (default: tools/bench/export_torchvision.py writes one)\n"
                              "  --no-fusion          nets, exported: every layer its own step (nets --prepare:\n"
                              "                       that build too, timed beside the fused one)\n"
                              "  --precision int8     conv: each layer in int8 against cortado's own fp32\n"
                              "  --precision fp16     nets --prepare: convolutions in fp16, against PyTorch eager\n"
                              "                       under fp16 autocast (gpu_bench.py)\n"
                              "Timing and reports:\n"
                              "  --iterations K       timed runs per case (default 10)\n"
                              "  --json F, --markdown F  write the report\n"
                              "  --prepare DIR        compile for a GPU this machine lacks (tools/bench/gpu_bench.py)\n"
                              "Target:\n") +
                      kTarget + kTuning},
        {"targets", "cortado targets\n  Lists the target descriptions: name, Halide target, schedule family.\n"},
        {"help", "cortado help [COMMAND]\n  The overview, or one command's options.\n"},
    };
    return texts;
}

}  // namespace

std::vector<std::string> command_names() {
    return {"info", "compile", "run", "tune", "quantize", "bench", "targets", "help"};
}

std::string general_usage() {
    return "usage: cortado COMMAND [arguments] [options]   (options as --key value or --key=value)\n"
           "  NET is a Caffe .prototxt or an ONNX model, told apart by content\n"
           "commands:\n"
           "  info      per-layer shapes and costs of a network; --plan: how each step is computed\n"
           "  compile   emit DIR/NAME.h and DIR/libNAME.a\n"
           "  run       compile, run and time the network here; check it against the reference\n"
           "  tune      search variants and knobs per layer, measured; record them\n"
           "  quantize  calibrate a network for int8 on images; compile, run, info take the result\n"
           "  bench     cortado against oneDNN / OpenBLAS / onnxruntime (conv, sgemm, nets, exported)\n"
           "  targets   list the target descriptions\n"
           "  help      cortado help COMMAND (or cortado COMMAND --help) for its options\n"
           "  --version cortado's and Halide's versions and the host target\n"
           "environment:\n"
           "  CORTADO_CACHE        kernel cache and the user's tuning database (default ~/.cache/cortado)\n"
           "  CORTADO_KNOBS        knob overrides for every op, e.g. conv2d.rows=4,gemm.cols=32\n"
           "  CORTADO_LAYOUTS      nchw: every activation in Caffe's layout (default blocked: channel-\n"
           "                       blocked between CPU convolutions that read and write it)\n"
           "  CORTADO_HOME         the install prefix to take targets and the runtime from\n"
           "                       (default: the folder above cortado's own)\n"
           "  CORTADO_CROSS_PREFIX the cross compiler prefix for other architectures (aarch64-linux-gnu-)\n"
           "exit codes:\n"
           "  0 success   1 bad input (the message names the file:line or the layer)   2 usage\n"
           "  3 internal error   4 reference check failed (run --check)   5 a blob is not finite\n";
}

std::string command_usage(const std::string &command) {
    const auto found = usages().find(command);
    return found == usages().end() ? "" : found->second;
}

std::string version_text() {
    std::string text = "cortado " CORTADO_VERSION;
    if (*CORTADO_GIT_DESCRIBE) text += " (" CORTADO_GIT_DESCRIBE ")";
    return text + "\nHalide " + std::to_string(HALIDE_VERSION_MAJOR) + "." + std::to_string(HALIDE_VERSION_MINOR) +
           "." + std::to_string(HALIDE_VERSION_PATCH) + "\nhost target " + Halide::get_host_target().to_string() + "\n";
}

}  // namespace cortado
