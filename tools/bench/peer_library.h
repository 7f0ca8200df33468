// The bench peers as a module the CLI loads only for `bench` (tools/bench/peers_loader.cc): the
// module (tools/bench/peers.cc, built as PREFIX/lib/libcortado_bench_peers.so where oneDNN and
// OpenBLAS are found) links both, the CLI neither. Every other command then starts without them:
// OpenBLAS starts a worker thread per core as it loads, and they spin for a while after.
#pragma once

#include <functional>

#include "tools/bench/peers.h"

namespace cortado {

inline constexpr const char *kPeerModule = "libcortado_bench_peers.so";

// The CLI's timing (a warm-up call, then `iterations` timed: median, minimum, maximum), so that
// the peers are timed as cortado is.
using TimeRuns = PeerTiming (*)(int iterations, const std::function<void()> &run);

struct PeerLibrary {
    decltype(&onednn_convolution) convolution;
    decltype(&onednn_inner_product) inner_product;
    decltype(&openblas_sgemm) sgemm;
};

// The module's one exported symbol: `const PeerLibrary *kPeerLibraryEntry(TimeRuns)`.
inline constexpr const char *kPeerLibraryEntry = "cortado_bench_peer_library";
using PeerLibraryEntry = const PeerLibrary *(*)(TimeRuns);

}  // namespace cortado
