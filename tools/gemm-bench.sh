#!/usr/bin/env bash
# The GEMM runs recorded in docs/PERFORMANCE.md: the sgemm suite, the fully-connected
# convolutions (a kernel covering the whole unpadded input: the 15 of Boda's set) and the 1x1
# convolutions (120) of the conv suite, and the nets suite, against OpenBLAS and oneDNN on this
# machine. The two convolution subsets are cut from ../shared/bench/boda-convs.csv into OUT_DIR.
# Run on an otherwise idle machine. Usage: tools/gemm-bench.sh [OUT_DIR] [TARGET]
# (TARGET default epyc-2core-avx512)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/out/bench-gemm}
target=${2:-epyc-2core-avx512}
csv="$root/../shared/bench/boda-convs.csv"
cortado="$root/build/tools/cortado"
mkdir -p "$out"
# Columns: batch,in_chan,in_h,in_w,out_chan,kernel_h,kernel_w,stride_h,stride_w,pad_h,pad_w,out_h,out_w[,group]
awk -F, 'NR == 1 || ($12 == 1 && $13 == 1 && $10 == 0 && $11 == 0 && $6 == $3 && $7 == $4 && ($14 == "" || $14 == 1))' \
  "$csv" > "$out/fully-connected.csv"
awk -F, 'NR == 1 || ($6 == 1 && $7 == 1)' "$csv" > "$out/1x1.csv"
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
