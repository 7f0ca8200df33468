#!/usr/bin/env bash
# The GEMM runs recorded in docs/PERFORMANCE.md: the sgemm suite, the fully-connected
# convolutions (a kernel covering the whole unpadded input: the 15 of Boda's set) and the 1x1
# convolutions (120) of the conv suite, and the nets suite, against OpenBLAS and oneDNN on this
# machine. The two convolution subsets are cut from ../shared/bench/boda-convs.csv into OUT_DIR.
# Run on an otherwise idle machine. Usage: tools/bench/gemm-bench.sh [OUT_DIR] [TARGET]
# (TARGET default epyc-2core-avx512)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/out/bench-gemm}
target=${2:-epyc-2core-avx512}
csv="$root/../shared/bench/boda-convs.csv"
cortado="$root/build/tools/cortado"
"$root/tools/bench-subsets.sh" "$csv" "$out"
run() {  # NAME SUITE ARGS...
  local name=$1 suite=$2
  shift 2
  "$cortado" bench "$suite" --target "$target" --iterations 10 --json "$out/$name.json" --markdown "$out/$name.md" "$@" \
    > /dev/null
  grep "cases on" "$out/$name.md"
}
run sgemm sgemm
run fully-connected conv --set "$out/fully-connected.csv"
run 1x1 conv --set "$out/1x1.csv"
run nets nets
