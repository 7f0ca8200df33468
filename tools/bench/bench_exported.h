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
};

// The five networks export_torchvision.py writes, as NAME.onnx in `models_dir`, at `batches`
// (empty: 1, 5 and 20); `names` keeps those it lists (empty: all).
std::vector<ExportedBenchCase> exported_network_cases(const std::string &models_dir,
                                                      const std::vector<int64_t> &batches,
                                                      const std::vector<std::string> &names);

// Writes the five networks into `dir` with tools/bench/export_torchvision.py (seed 1); throws
// CompileError saying what to install when that cannot run.
void export_torchvision_networks(const std::string &dir);

// `fuse` as for bench_network.
BenchRow bench_exported_network(const ExportedBenchCase &c, const TargetDescription &target, int iterations,
                                const std::string &scratch, const ChoiceOverrides &records = {}, bool fuse = true);

}  // namespace cortado
