#!/usr/bin/env bash
# The knob sweep that chose the GPU GEMM's defaults (docs/PERFORMANCE.md, the GEMM on the H100):
# the sgemm suite, the fully-connected convolutions (15) and the 1x1 convolutions (120) of
# Boda's set, each compiled here for cuda-h100 once per knob setting, then timed and checked
# against cuBLAS/cuDNN on the GPU machine by tools/bench/gpu_bench.py. Gathers .device/ (ignored by
# git); run through the device tool with carry [".device"]:
#     bash .device/sweep.sh [PATTERN]
# which times the settings whose label matches PATTERN (grep -E; all by default) and writes one
# JSON and markdown table per suite and setting into $OUT/sweep.tgz.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target cortado cortado_caffe_pb2 >/dev/null
rm -rf .device && mkdir -p .device/stage
cp tools/bench/gpu_bench.py build/python/caffe_pb2.py .device/
tools/bench/bench-subsets.sh "$root/../shared/bench/boda-convs.csv" .device

# prepare LABEL SUITE KNOBS [bench options...]
prepare() {
  local label=$1 suite=$2 knobs=$3; shift 3
  CORTADO_KNOBS="$knobs" build/tools/cortado bench "$suite" --target cuda-h100 --prepare ".device/stage/$label" "$@" \
    2>/dev/null | tail -1
  echo "run $label $suite" >> .device/sweep.sh
}
cat > .device/sweep.sh <<'RUN'
set -u; cd "$(dirname "$0")"; status=0; pattern=${1:-.}; results=$(mktemp -d)
mkdir -p stage && xz -dc stage.tar.xz | tar -C stage -xf -
run() {  # LABEL SUITE
  echo "$1" | grep -qE "$pattern" || return 0
  python3 gpu_bench.py "stage/$1" "$2" "$results/sweep-$1.json" 10 > /dev/null || status=1
}
RUN
ip=inner_product
prepare sgemm-default sgemm ""
prepare sgemm-gemv sgemm "$ip.variant=gpu_block_partials"
prepare sgemm-unroll1 sgemm "$ip.k_unroll=1"
prepare sgemm-4x8-t8x4 sgemm "$ip.cols=4,$ip.rows=8,$ip.threads_x=8,$ip.threads_y=4"
prepare sgemm-4x4-t16x2 sgemm "$ip.cols=4,$ip.rows=4,$ip.threads_x=16,$ip.threads_y=2"
prepare sgemm-4x8-t16x4 sgemm "$ip.cols=4,$ip.rows=8,$ip.threads_x=16,$ip.threads_y=4"
prepare sgemm-8x8-t8x4 sgemm "$ip.cols=8,$ip.rows=8,$ip.threads_x=8,$ip.threads_y=4,$ip.k_unroll=2"
# Second round, around the 4 x 4 tile that won the first.
tile() {  # LABEL COLS ROWS THREADS_X THREADS_Y [MORE KNOBS]
  prepare "sgemm2-$1" sgemm "$ip.variant=gpu_gemm,$ip.cols=$2,$ip.rows=$3,$ip.threads_x=$4,$ip.threads_y=$5${6:+,$6}"
}
tile 4x4-t16x2 4 4 16 2
tile 4x4-t16x2-packa 4 4 16 2 "$ip.pack_a=1"
tile 4x4-t8x4 4 4 8 4
tile 4x4-t32x1 4 4 32 1
tile 4x4-t16x4 4 4 16 4
tile 4x4-t16x8 4 4 16 8
tile 2x4-t16x2 2 4 16 2
tile 4x2-t16x2 4 2 16 2
tile 4x6-t16x2 4 6 16 2
tile 4x8-t16x2-packa 4 8 16 2 "$ip.pack_a=1"
tile 4x8-t16x2-unroll1 4 8 16 2 "$ip.k_unroll=1"
tile 4x4-t16x2-unroll2 4 4 16 2 "$ip.k_unroll=2"
tile 4x4-t16x2-unroll8 4 4 16 2 "$ip.k_unroll=8"
tile 8x4-t8x4 8 4 8 4
tile 2x8-t32x1-packa 2 8 32 1 "$ip.pack_a=1"
fc=".device/fully-connected.csv"
prepare fc-default conv "" --set "$fc"
prepare fc-square conv "conv2d.variant=gpu_gemm_fully_connected" --set "$fc"
prepare fc-kb128 conv "conv2d.k_block=128" --set "$fc"
prepare fc-kb512 conv "conv2d.k_block=512" --set "$fc"
prepare fc-kb1024 conv "conv2d.k_block=1024" --set "$fc"
prepare fc-cols2 conv "conv2d.cols=2" --set "$fc"
prepare fc-square-packa conv "conv2d.variant=gpu_gemm_fully_connected,conv2d.pack_a=1" --set "$fc"
prepare 1x1-pixels conv "conv2d.variant=gpu_gemm_1x1" --set .device/1x1.csv
prepare 1x1-channels conv "conv2d.variant=gpu_gemm_1x1_channel_lanes" --set .device/1x1.csv
echo 'tar -C "$results" -czf "${OUT:-/tmp}/sweep.tgz" .; exit $status' >> .device/sweep.sh
tar -C .device/stage -cf - . | xz -9 -T2 > .device/stage.tar.xz
rm -rf .device/stage
du -sh .device
