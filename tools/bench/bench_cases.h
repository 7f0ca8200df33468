// The benchmark cases shared by `cortado bench` on this machine and the GPU bench prepared for
// the lent GPU: Boda's convolutions plus the Overfeat layers, and square SGEMMs.
#pragma once

#include <string>
#include <vector>

#include "tools/bench/peers.h"

namespace cortado {

// Rows of a CSV like ../shared/bench/boda-convs.csv (N,C,H,W,K,kh,kw,sh,sw,ph,pw,oh,ow and an
// optional 14th column, group; batch 0: all batches), plus, `with_overfeat`, the Overfeat layers
// of the GTC 2015 talk at batch 1; `quick` keeps every 16th case and the last (CI-sized).
std::vector<ConvShape> conv_set(const std::string &csv, int64_t batch, bool quick, bool with_overfeat);
std::string conv_prototxt(const ConvShape &s);
std::string conv_name(const ConvShape &s);
// Multiply-adds x 2, and the compulsory traffic (input, weights, bias and output once), in MB.
double conv_gflop(const ConvShape &s);
double conv_megabytes(const ConvShape &s);

// Boda's Table I sizes, 128 ... 2048, and 4096 unless `quick`.
std::vector<int> sgemm_sizes(bool quick);
// C = A * B^T as a bias-free InnerProduct on an n x n input.
std::string sgemm_prototxt(int n);
double sgemm_gflop(int n);
double sgemm_megabytes(int n);  // A, B and C once

}  // namespace cortado
