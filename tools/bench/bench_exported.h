// `cortado bench exported`: torchvision's networks as PyTorch exports them to ONNX
// (tools/bench/export_torchvision.py, run for the bench when no --models folder is given), whole, at
// several batch sizes, against onnxruntime on the same input (tools/bench/onnxruntime_peer.py, run by
// the python3 on PATH): the outputs are compared before either side's times count.
#pragma once

#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"
#include "tools/bench/bench_report.h"

namespace cortado {

struct ExportedBenchCase {
    std::string model;  // NAME.onnx
    int batch;
    // int8: the model as onnxruntime's quantize_static writes it (tools/bench/onnxruntime_quantize.py,
    // NAME-qdq.onnx beside it, made once), which both sides run, cortado with --precision int8.
    bool int8 = false;
};

// The networks export_torchvision.py writes, as NAME.onnx in `models_dir`, at `batches`
// (empty: 1, 5 and 20); `names` keeps those it lists (empty: all). `int8`: their quantized
// forms, written into `models_dir` where missing; `seven_bit_weights`: quantized with
// quantize_static's reduce_range (NAME-qdq7.onnx), as onnxruntime advises for CPUs without VNNI,
// whose int8 kernels in cortado take 7-bit weights (ops::kInt8PairSumLevels).
std::vector<ExportedBenchCase> exported_network_cases(const std::string &models_dir,
                                                      const std::vector<int64_t> &batches,
                                                      const std::vector<std::string> &names, bool int8 = false,
                                                      bool seven_bit_weights = false);

// Writes the five networks into `dir` with tools/bench/export_torchvision.py (seed 1); throws
// CompileError saying what to install when that cannot run.
void export_torchvision_networks(const std::string &dir);

// `fuse` as for bench_network.
BenchRow bench_exported_network(const ExportedBenchCase &c, const TargetDescription &target, int iterations,
                                const std::string &scratch, const ChoiceOverrides &records = {}, bool fuse = true);

}  // namespace cortado
