#!/usr/bin/env bash
# Prepares the GPU fp16 run: AlexNet, GoogLeNet, SqueezeNet 1.1 and ResNet-50 (../shared/models)
# compiled for CUDA in fp32 and with `--precision fp16` at batch 1 and 20, and AlexNet for
# NVIDIA OpenCL with the target feature cl_half at batch 1 (whether the driver builds half
# kernels); gathered into .device/ (ignored by git) with the libHalide-free checker, the
# libraries xz-compressed. Then, through the device tool, with carry [".device"]:
#     bash .device/run.sh
# Each batch-1 library is checked blob by blob against the double-precision reference (fp16
# layers against their fp16 semantics, docs/precision.md) and timed; the batch-20 ones are timed
# alone (--time-only), fp32 and fp16 one after the other.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado
shared="$root/../shared/models"
[ -d "$shared" ] || { echo "gpu-fp16: needs ../shared/models beside the checkout" >&2; exit 1; }

rm -rf .device && mkdir -p .device/bin .device/lib .device/models
cp build/tools/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
cp "$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')" .device/lib/libOpenCL.so.1
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > .device/nvidia.icd
cuda=$(sed -n 's/^halide_target = //p' targets/cuda-h100.target)
opencl_half="$(sed -n 's/^halide_target = //p' targets/opencl-nvidia.target)-cl_half"
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

for net in alexnet googlenet squeezenet_v1.1 resnet50; do
  cp "$shared/$net.prototxt" .device/models/
  model=.device/models/$net.prototxt
  for batch in 1 20; do
    check=""; [ $batch = 20 ] && check=--time-only
    for precision in fp32 fp16; do
      dir=.device/stage/cuda/$net-$precision-b$batch
      library "$dir" cuda-h100 "$model" --batch $batch --precision $precision
      flag=""; [ $precision = fp16 ] && flag="--precision fp16"
      echo "bin/prebuilt_network_check models/$net.prototxt ${dir#.device/}/libnet.so $cuda --batch $batch $flag $check --iterations 20 || status=1" >> .device/run.sh
    done
  done
done
dir=.device/stage/opencl/alexnet-fp16-b1
library "$dir" "$opencl_half" .device/models/alexnet.prototxt --batch 1 --precision fp16
echo "echo 'NVIDIA OpenCL, half kernels (cl_half):'; bin/prebuilt_network_check models/alexnet.prototxt ${dir#.device/}/libnet.so $opencl_half --batch 1 --precision fp16 --iterations 5" >> .device/run.sh
echo 'exit $status' >> .device/run.sh
tar -C .device/stage -cf - . | xz -9 -T2 > .device/stage.tar.xz
rm -rf .device/stage
du -sh .device
