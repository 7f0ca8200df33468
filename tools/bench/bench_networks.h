// `cortado bench nets`: whole networks at several batch sizes against the sum of oneDNN's times
// for the same network's convolutions and inner products, each fed the very input cortado's
// layer saw and checked against cortado's output for that layer before it is timed.
#pragma once

#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/target_description.h"
#include "frontend/graph.h"
#include "tools/bench/bench_report.h"

namespace cortado {

struct NetworkBenchCase {
    std::string file;                  // prototxt path
    std::vector<int64_t> input_shape;  // empty: the prototxt's own (batch replaced)
    int batch;
};

// The shipped networks (../shared/models) at `batches` (empty: 1, 5 and 20); `names` keeps the
// networks whose file stem it lists (empty: all); `quick` keeps a CI-sized few.
std::vector<NetworkBenchCase> shipped_network_cases(const std::string &models_dir, bool quick,
                                                    const std::vector<int64_t> &batches = {},
                                                    const std::vector<std::string> &names = {});

// The case's network, unfused, with shapes, and random stand-ins where the prototxt has no
// fillers; and its display name ("alexnet b5").
Graph load_bench_network(const NetworkBenchCase &c);
std::string bench_network_name(const NetworkBenchCase &c);

// Times the network as compiled with `records` (tuning records), and, where they change some
// kernel, as compiled without them too, the two alternating (BenchRow::untuned). `fuse`: as
// compile plans it (frontend/fusion.h's fuse_layers), or every layer its own step (--no-fusion).
BenchRow bench_network(const NetworkBenchCase &c, const TargetDescription &target, int iterations,
                       const std::string &scratch, const ChoiceOverrides &records = {}, bool fuse = true);

}  // namespace cortado
