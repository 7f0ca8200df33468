#!/usr/bin/env bash
# Cuts subsets out of Boda's convolution set: the fully-connected convolutions (a kernel covering
# the whole unpadded input: 15), the 1x1 convolutions (120), the stride-1 3x3 and 5x5 ones in one
# group (Winograd's) and the spatial ones (neither 1x1 nor fully connected: the direct variants'),
# as OUT_DIR/fully-connected.csv, OUT_DIR/1x1.csv, OUT_DIR/3x3s1.csv, OUT_DIR/5x5s1.csv and
# OUT_DIR/spatial.csv, for `cortado bench conv --set`.
# Usage: tools/bench/bench-subsets.sh CSV OUT_DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: tools/bench/bench-subsets.sh CSV OUT_DIR" >&2; exit 2; }
csv=$1 out=$2
[ -f "$csv" ] || { echo "bench-subsets: no $csv (../shared/bench beside the checkout?)" >&2; exit 1; }
mkdir -p "$out"
# Columns: batch,in_chan,in_h,in_w,out_chan,kernel_h,kernel_w,stride_h,stride_w,pad_h,pad_w,out_h,out_w[,group]
awk -F, 'NR == 1 || ($12 == 1 && $13 == 1 && $10 == 0 && $11 == 0 && $6 == $3 && $7 == $4 && ($14 == "" || $14 == 1))' \
  "$csv" > "$out/fully-connected.csv"
awk -F, 'NR == 1 || ($6 == 1 && $7 == 1)' "$csv" > "$out/1x1.csv"
awk -F, 'NR == 1 || ($6 == 3 && $7 == 3 && $8 == 1 && $9 == 1 && ($14 == "" || $14 == 1))' "$csv" > "$out/3x3s1.csv"
awk -F, 'NR == 1 || ($6 == 5 && $7 == 5 && $8 == 1 && $9 == 1 && ($14 == "" || $14 == 1))' "$csv" > "$out/5x5s1.csv"
awk -F, 'NR == 1 || !(($6 == 1 && $7 == 1) || ($12 == 1 && $13 == 1 && $10 == 0 && $11 == 0 && $6 == $3 && $7 == $4))' \
  "$csv" > "$out/spatial.csv"
