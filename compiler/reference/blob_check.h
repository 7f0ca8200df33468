// Runs a loaded network on seeded weights and random input and compares every blob it writes
// with the double-precision reference interpreter. Needs no libHalide, so the same check runs
// here and, on prebuilt GPU libraries, on the lent GPU machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/kernel_plan.h"
#include "compiler/loaded_network.h"
#include "compiler/reference/reference_interpreter.h"
#include "compiler/reference/reference_ops.h"
#include "frontend/graph.h"

namespace cortado {

struct BlobCheck {
    int blobs_checked = 0;
    int all_zero_blobs = 0;    // blobs whose reference is all zeros: a check that would prove nothing
    double worst_error = 0.0;  // relative L2 error of the worst blob
    std::string worst_blob;
    double tolerance = 1e-5;      // what the plan's variants are held to (NetworkPlan::tolerance)
    int blocked_tensors = 0;      // tensors the plan stored channel-blocked, compared as NCHW
    int sums_over_residuals = 0;  // steps that wrote their output over the residual they add
    // In execution order, the first blob beyond `tolerance` relative L2 and 1e-6 RMS; "" if none.
    std::string first_failing_blob;
    double first_failing_error = 0.0;
};

// The reference's values of `unfused`, by value id, on `input`. Where `unfused` has int8 or fp16
// convolutions or Quantize activations, `net` (the compiled form of `plan`) runs `input` once
// first, and the reference is anchored on what the network gave them (reference::run_graph's
// anchors).
std::vector<reference::Tensor> reference_values(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net,
                                                const reference::WeightMap &weights, const std::vector<float> &input);

// Runs `net` (the compiled form of `plan`) on `input` and compares every blob it writes with
// `expected`, the reference's values of `unfused` by value id, and the output it returns.
BlobCheck compare_blobs(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net,
                        const std::vector<float> &input, const std::vector<reference::Tensor> &expected);

// `net` must be the compiled form of `plan` (made from `unfused` after fusion), created with
// seeded weights from `seed`, or with `weights` where given (a model's own); the input is
// uniform(-1, 1) from the same seed.
BlobCheck check_every_blob(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net, uint64_t seed,
                           const std::vector<LayerWeights> *weights = nullptr);

// Runs `net` `forwards` times more without the blob callback, each on a fresh uniform(-1, 1)
// input drawn from `seed`, and returns the worst relative L2 error of the returned output against
// the reference: the path a CUDA network replays as one graph from its second forward
// (runtime/cuda_graph.h), which check_every_blob's callback keeps it off. A replay that read a
// stale input fails wherever the outputs of two inputs differ by more than the tolerance (they do
// for seeded weights; a saturated softmax could hide it). Weights as there.
double check_replays(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net, uint64_t seed, int forwards,
                     const std::vector<LayerWeights> *weights = nullptr);

// Runs `net` on inputs that hold NaN, +inf and -inf among uniform(-1, 1) values (one input per
// pattern: a NaN, a +inf, a -inf, then all three mixed; positions drawn from `seed`) and compares
// the output element by element with the reference. Returns "" when every element has the
// reference's kind (NaN, +inf, -inf or finite) and the finite ones are within 1e-5 relative L2 (or
// 1e-6 RMS, where they cancel to near 0);
// otherwise which input and which elements differ. `net` is made as for check_every_blob.
std::string check_non_finite(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net, uint64_t seed);

}  // namespace cortado
