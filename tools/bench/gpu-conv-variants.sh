#!/usr/bin/env bash
# Prepares a GPU comparison of convolution variants: the conv suite (or the cases of a --set
# CSV) compiled for CUDA with the default rule and once more per knob set, each forced through
# CORTADO_KNOBS, into .device/ (ignored by git) with .device/run.sh, which times every library
# against cuDNN on the lent GPU (tools/bench/gpu_bench.py) and writes $OUT/gpu-conv-LABEL.json. Run it
# through the device tool with carry [".device"], then compare here with tools/bench/bench_compare.py.
# Like tools/bench/gpu-check.sh it replaces whatever .device/ held. An exported CORTADO_KNOBS is
# ignored: each suite's knobs are the ones given here.
#     tools/bench/gpu-conv-variants.sh [--set CSV] LABEL=KNOBS...
#     e.g. tools/bench/gpu-conv-variants.sh --set spatial.csv lanes=conv2d.variant=gpu_direct_channel_lanes
set -euo pipefail
usage="usage: tools/bench/gpu-conv-variants.sh [--set CSV] LABEL=KNOBS..."
set_option=()
if [ "${1:-}" = --set ]; then
  [ $# -ge 2 ] && [ -f "$2" ] || { echo "gpu-conv-variants: --set needs a CSV file" >&2; exit 2; }
  set_option=(--set "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2
fi
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
labels=default
for variant in "$@"; do
  label=${variant%%=*} knobs=${variant#*=}
  [[ "$label" =~ ^[A-Za-z0-9_]+$ && "$knobs" != "$variant" ]] || { echo "$usage (bad '$variant')" >&2; exit 2; }
  [[ " $labels " != *" $label "* ]] || { echo "gpu-conv-variants: label '$label' given twice (or 'default')" >&2; exit 2; }
  labels="$labels $label"
done
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target cortado cortado_caffe_pb2 >/dev/null
rm -rf .device && mkdir -p .device/lib .device/stage
protobuf=$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')
[ -n "$protobuf" ] || { echo "gpu-conv-variants: no libprotobuf.so.32 (run tools/bootstrap.sh)" >&2; exit 1; }
cp "$protobuf" .device/lib/
cp tools/bench/gpu_bench.py build/python/caffe_pb2.py .device/
env -u CORTADO_KNOBS build/tools/cortado bench conv --target cuda-h100 --prepare .device/stage/default "${set_option[@]}" >/dev/null
for variant in "$@"; do
  label=${variant%%=*} knobs=${variant#*=}
  CORTADO_KNOBS=$knobs build/tools/cortado bench conv --target cuda-h100 --prepare ".device/stage/$label" "${set_option[@]}" >/dev/null
done
tar -C .device/stage -cf - . | xz -6 -T2 > .device/stage.tar.xz
rm -rf .device/stage
cat > .device/run.sh <<RUN
set -u; cd "\$(dirname "\$0")"; export LD_LIBRARY_PATH=\$PWD/lib:\${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; status=0
mkdir -p stage && xz -dc stage.tar.xz | tar -C stage -xf -
for label in $labels; do
  python3 gpu_bench.py stage/\$label conv \${OUT:-/tmp}/gpu-conv-\$label.json 20 > \${OUT:-/tmp}/\$label.log 2>&1 || status=1
  echo "\$label: \$(tail -1 \${OUT:-/tmp}/\$label.log)"
done
exit \$status
RUN
du -sh .device
