#!/usr/bin/env bash
# Compiles every shared Caffe network (../shared/models) for HVX with its convolutions in int8:
# each calibrated here by `cortado quantize` on two random images with stand-in weights (the
# ranges only set the scales), then `cortado compile --target hexagon-hvx --qparams` with
# CORTADO_DEBUG_ASM=1 into a fresh kernel cache, and every int8 kernel's DSP assembly searched
# for vrmpy. Prints one line per network; exits 1 if any fails.
#     tools/bench/hvx-int8-compile.sh [NET...]      (default: every deploy prototxt there)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
shared="$root/../shared/models"
nets=("$@")
[ ${#nets[@]} -gt 0 ] || nets=(lenet cifar10_quick cifar10_full alexnet caffenet nin_imagenet_train_val_v1 googlenet squeezenet_v1.1 resnet50)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for net in "${nets[@]}"; do
  model="$shared/$net.prototxt"
  # The input's C, H, W: the prototxt's dims, or for a data-layer network 3 by its crop size.
  shape=$(/usr/bin/python3 - "$model" "$scratch/$net.npy" <<'PY'
import re, sys, numpy as np
text = open(sys.argv[1]).read()
dims = [int(d) for d in re.findall(r"(?:input_dim|dim):\s*(\d+)", text)[:4]]
if not dims:
    crop = int(re.search(r"crop_size:\s*(\d+)", text).group(1))
    dims = [1, 3, crop, crop]
    print("--input-shape 1,3,%d,%d" % (crop, crop))
np.save(sys.argv[2], np.random.default_rng(3).standard_normal([2] + dims[1:]).astype(np.float32))
PY
)
  build/tools/cortado run "$model" $shape --batch 1 --iterations 1 --save-weights "$scratch/$net.caffemodel" >/dev/null 2>&1
  summary=$(build/tools/cortado quantize "$model" $shape --weights "$scratch/$net.caffemodel" --calibrate "$scratch/$net.npy" \
    --target hexagon-hvx -o "$scratch/$net.qparams" 2>&1 | grep -o "[0-9]* of [0-9]* convolutions in int8")
  cache="$scratch/cache-$net"
  if ! out=$(CORTADO_CACHE=$cache CORTADO_DEBUG_ASM=1 build/tools/cortado compile "$model" $shape --batch 1 \
      --qparams "$scratch/$net.qparams" --target hexagon-hvx --shared -o "$scratch/out-$net" 2>&1); then
    echo "$net: compile FAILED: $(echo "$out" | tail -1)"; status=1; continue
  fi
  int8=0 with=0
  for sig in "$cache"/*/signature.txt; do
    grep -q "^conv2d_int8|" "$sig" || continue
    int8=$((int8 + 1))
    grep -q vrmpy "$(dirname "$sig")"/*.hexagon.s && with=$((with + 1))
  done
  echo "$net: $summary; compiled; $with of $int8 int8 kernels with vrmpy"
  [ "$with" = "$int8" ] && [ "$int8" -gt 0 ] || status=1
done
exit $status
