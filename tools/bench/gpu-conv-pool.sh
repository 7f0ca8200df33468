#!/usr/bin/env bash
# Prepares the GPU run of the fused convolution + MAX pooling (ops/conv2d_pool.h): the networks
# of ../shared/models with such pairs compiled for CUDA at batch 1 and 20, each pair as its two
# kernels (the default, `unfused`) and as one (CORTADO_KNOBS=conv2d_pool.variant=gpu_conv_pool,
# default knobs), and AlexNet fused for NVIDIA OpenCL at batch 1; gathered into .device/ (ignored
# by git) with the libHalide-free checker, the libraries xz-compressed. Then, through the device
# tool, with carry [".device"]:
#     bash .device/run.sh
# Each batch-1 library is checked blob by blob against the double-precision reference and timed;
# the batch-20 ones are timed alone (--time-only), apart and fused one after the other.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado
shared="$root/../shared/models"
[ -d "$shared" ] || { echo "gpu-conv-pool: needs ../shared/models beside the checkout" >&2; exit 1; }

rm -rf .device && mkdir -p .device/bin .device/lib .device/models
cp build/tools/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
cp "$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')" .device/lib/libOpenCL.so.1
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > .device/nvidia.icd
cuda=$(sed -n 's/^halide_target = //p' targets/cuda-h100.target)
opencl=$(sed -n 's/^halide_target = //p' targets/opencl-nvidia.target)
fused=conv2d_pool.variant=gpu_conv_pool
{
  echo 'set -u; cd "$(dirname "$0")"; export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}'
  echo 'export OCL_ICD_VENDORS=$PWD/nvidia.icd OCL_ICD_FILENAMES=/usr/local/nvidia/lib64/libnvidia-opencl.so.1'
  echo 'nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; status=0'
  echo 'mkdir -p stage && xz -dc stage.tar.xz | tar -C stage -xf -'
} > .device/run.sh

library() {  # library DIR TARGET NET KNOBS [cortado compile options...]
  local dir=$1 target=$2 net=$3 knobs=$4; shift 4
  CORTADO_KNOBS=$knobs build/tools/cortado compile "$net" --target "$target" "$@" --name net --shared -o "$dir" >/dev/null
  rm -f "$dir"/*.a "$dir"/*_glue.cc "$dir"/*.h "$dir"/*.caffemodel
}

for net in lenet cifar10_quick alexnet googlenet squeezenet_v1.1 resnet50; do
  cp "$shared/$net.prototxt" .device/models/
  model=.device/models/$net.prototxt
  for batch in 1 20; do
    check=""; [ $batch = 20 ] && check=--time-only
    for form in apart fused; do
      knobs=""; [ $form = fused ] && knobs=$fused
      dir=.device/stage/cuda/$net-$form-b$batch
      library "$dir" cuda-h100 "$model" "$knobs" --batch $batch
      flag=""; [ $form = fused ] && flag="--knobs $fused"
      echo "echo '$net b$batch $form:'; bin/prebuilt_network_check models/$net.prototxt ${dir#.device/}/libnet.so $cuda --batch $batch $flag $check --iterations 20 || status=1" >> .device/run.sh
    done
  done
done
dir=.device/stage/opencl/alexnet-fused-b1
library "$dir" opencl-nvidia .device/models/alexnet.prototxt "$fused" --batch 1
echo "echo 'NVIDIA OpenCL, alexnet b1 fused:'; bin/prebuilt_network_check models/alexnet.prototxt ${dir#.device/}/libnet.so $opencl --batch 1 --knobs $fused --iterations 5 || status=1" >> .device/run.sh
echo 'exit $status' >> .device/run.sh
tar -C .device/stage -cf - . | xz -9 -T2 > .device/stage.tar.xz
rm -rf .device/stage
du -sh .device
