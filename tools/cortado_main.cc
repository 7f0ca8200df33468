// cortado: compile Caffe networks into native libraries. See README.md for usage.
#include <iostream>

#include "tools/commands.h"
#include "tools/report_errors.h"

namespace {

const char *kUsage =
    "usage: cortado <command> NET.prototxt [options]   (bench: cortado bench SUITE [options])\n"
    "commands:\n"
    "  info     per-layer shapes, FLOPs, parameters, arithmetic intensity\n"
    "           [--batch N] [--input-shape N,C,H,W] [--json]\n"
    "           --plan [--target T] [--db FILE]: per step the kernel, variant and knobs, and\n"
    "           where each came from\n"
    "  compile  emit DIR/NAME.h and DIR/libNAME.a with NAME_forward()\n"
    "           -o DIR [--target T] [--batch N] [--name NAME] [--input-shape N,C,H,W] [--shared]\n"
    "           [--db FILE]  (tuning records: a variant and knobs per op signature)\n"
    "  run      compile, run and time the network on this machine\n"
    "           [--weights W.caffemodel | --seed S] [--save-weights OUT.caffemodel]\n"
    "           [--input X.npy] [--output Y.npy] [--dump-dir D] [--input-shape N,C,H,W]\n"
    "           [--batch N] [--target T] [--iterations K] [--check] [--check-finite] [--db FILE]\n"
    "  tune     search variants and knobs per op signature, measured here; records go to a\n"
    "           tuning database that compile, run and bench use\n"
    "           [--target T] [--batch N[,N...]] [--input-shape N,C,H,W] [--budget MINUTES]\n"
    "           [--db FILE] [--jobs J] [--max-candidates K] [--max-tolerance E] [--seed S]\n"
    "           or --suite conv|sgemm|nets [--quick] [--set CSV] [--models DIR] instead of NET.prototxt;\n"
    "           for a GPU this machine lacks: --prepare DIR (bundles for tools/tune_runner.py),\n"
    "           then cortado tune --import OUT.jsonl [--db FILE]\n"
    "  bench    conv|sgemm: cortado vs oneDNN / OpenBLAS on the same data, outputs checked first\n"
    "           [--quick] [--batch N] [--iterations K] [--json F] [--markdown F] [--set CSV]\n";

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        std::cout << kUsage;
        return argc < 2 ? 2 : 0;
    }
    const std::string command = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    return cortado::run_reporting_errors([&] {
        if (command == "info") return cortado::command_info(args);
        if (command == "compile") return cortado::command_compile(args);
        if (command == "run") return cortado::command_run(args);
        if (command == "bench") return cortado::command_bench(args);
        if (command == "tune") return cortado::command_tune(args);
        std::cerr << "cortado: unknown command '" << command << "'\n" << kUsage;
        return 2;
    });
}
