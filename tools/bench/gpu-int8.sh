#!/usr/bin/env bash
# Prepares the GPU int8 run: AlexNet, GoogLeNet and ResNet-50 (../shared/models), calibrated here
# on two random images (`cortado quantize` with stand-in weights: the ranges only set the scales,
# timing and the check do not depend on them), compiled for CUDA in fp32 and in int8 at batch 1
# and 20, and for NVIDIA OpenCL in int8 at batch 1; gathered into .device/ (ignored by git) with
# the libHalide-free checker, the libraries xz-compressed. Then, through the device tool, with carry [".device"]:
#     bash .device/run.sh
# Each batch-1 library is checked blob by blob against the double-precision reference (int8
# layers against their int8 semantics, docs/precision.md) and timed; the batch-20 ones are timed
# alone (--time-only: ResNet-50's reference at batch 20 takes minutes), fp32 and int8 one after
# the other, kernel by kernel (each layer's median) and whole forwards.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado
shared="$root/../shared/models"
[ -d "$shared" ] || { echo "gpu-int8: needs ../shared/models beside the checkout" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

rm -rf .device && mkdir -p .device/bin .device/lib .device/models
cp build/tools/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
cp "$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')" .device/lib/libOpenCL.so.1
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > .device/nvidia.icd
cuda=$(sed -n 's/^halide_target = //p' targets/cuda-h100.target)
opencl=$(sed -n 's/^halide_target = //p' targets/opencl-nvidia.target)
{
  echo 'set -u; cd "$(dirname "$0")"; export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}'
  echo 'export OCL_ICD_VENDORS=$PWD/nvidia.icd OCL_ICD_FILENAMES=/usr/local/nvidia/lib64/libnvidia-opencl.so.1'
  echo 'nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; status=0'
  echo 'mkdir -p stage && xz -dc stage.tar.xz | tar -C stage -xf -'
} > .device/run.sh

library() {  # library DIR TARGET NET [cortado compile options...]
  local dir=$1 target=$2 net=$3; shift 3
  build/tools/cortado compile "$net" --target "$target" "$@" --name net --shared -o "$dir" >/dev/null
  rm -f "$dir"/*.a "$dir"/*_glue.cc "$dir"/*.h "$dir"/*.caffemodel
}

for net in alexnet googlenet resnet50; do
  cp "$shared/$net.prototxt" .device/models/
  model=.device/models/$net.prototxt
  # Two random images of the network's input (its C, H, W: the prototxt's last three dims).
  /usr/bin/python3 - "$model" "$scratch/$net.npy" <<'PY'
import re, sys, numpy as np
dims = [int(d) for d in re.findall(r"(?:input_dim|dim):\s*(\d+)", open(sys.argv[1]).read())[:4]]
np.save(sys.argv[2], np.random.default_rng(3).standard_normal([2] + dims[1:]).astype(np.float32))
PY
  build/tools/cortado run "$model" --batch 1 --iterations 1 --save-weights "$scratch/$net.caffemodel" >/dev/null 2>&1
  # Calibrated on the host (the GPU is not here): its int8 layers are the ones the GPU runs too.
  qparams=.device/models/$net.qparams
  build/tools/cortado quantize "$model" --weights "$scratch/$net.caffemodel" --calibrate "$scratch/$net.npy" \
    -o $qparams | tail -1
  for api in cuda opencl; do
    target=cuda-h100; halide=$cuda
    [ $api = opencl ] && target=opencl-nvidia halide=$opencl
    batches="1 20"; [ $api = opencl ] && batches=1
    for batch in $batches; do
      check=""; [ $batch = 20 ] && check=--time-only
      for precision in fp32 int8; do
        [ $api = opencl ] && [ $precision = fp32 ] && continue
        int8=""; [ $precision = int8 ] && int8="--qparams ${qparams#.device/}"
        dir=.device/stage/$api/$net-$precision-b$batch
        library "$dir" $target "$model" --batch $batch ${int8:+--qparams $qparams}
        echo "bin/prebuilt_network_check models/$net.prototxt ${dir#.device/}/libnet.so $halide --batch $batch $int8 $check --iterations 20 || status=1" >> .device/run.sh
      done
    done
  done
done
echo 'exit $status' >> .device/run.sh
# The libraries xz-compressed, to fit the device tool's 64 MiB carry.
tar -C .device/stage -cf - . | xz -9 -T2 > .device/stage.tar.xz
rm -rf .device/stage
du -sh .device
