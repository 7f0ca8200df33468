// `cortado bench conv|sgemm|nets --target GPU --prepare DIR`: the GPU half of the benchmarks for
// a GPU this machine lacks. Compiles every case for the target into DIR/SUITE-I/libnet.so and
// writes DIR/SUITE.json listing each library with its shape (or, for nets, its graph as JSON),
// GFLOP and compulsory traffic, and the target's roofline; tools/bench/gpu_bench.py runs them on the
// GPU machine against cuDNN, cuBLAS, and PyTorch eager and torch.compile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"

namespace cortado {

// `batches` and `net_names` select cases as `cortado bench` does (empty: all; conv takes at most
// one batch). With tuning `records` that change some kernel of a case, its untuned library is
// built too (CASE/untuned/libnet.so, "untuned_library"), and gpu_bench.py times both. `fp16`
// (nets only): every convolution the target can runs in half precision (docs/precision.md), and
// gpu_bench.py runs PyTorch eager under fp16 autocast against it. Without `fuse` (nets only), each
// case also gets its graph built with every layer its own step (CASE/unfused/libnet.so,
// "unfused_library"), which gpu_bench.py times beside the fused library against the same peers.
void prepare_gpu_bench(const std::string &suite, const std::string &csv, const std::string &models_dir,
                       const std::vector<int64_t> &batches, const std::vector<std::string> &net_names, bool quick,
                       bool with_overfeat, const TargetDescription &target, const std::string &dir,
                       const ChoiceOverrides &records = {}, bool fp16 = false, bool fuse = true);

}  // namespace cortado
