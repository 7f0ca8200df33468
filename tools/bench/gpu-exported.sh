#!/usr/bin/env bash
# Prepares the GPU run for issue 22's networks: torchvision's five exported networks (tools/
# export_torchvision.py, seed 1) compiled here for CUDA and for NVIDIA OpenCL at batch 1 and 20,
# and MobileNetV2's depthwise layers (models/bench/mobilenet-v2-depthwise.csv) prepared for both
# APIs' benchmarks; gathered into .device/ (ignored by git) with the libHalide-free checker. Then
# run, through the device tool, with carry [".device"]:
#     bash .device/run.sh
# On the GPU machine it regenerates the models from the same seed with that machine's PyTorch
# (they never travel), checks every blob of each network against the double-precision reference
# on both APIs (prebuilt_network_check, seeded weights; it also writes each model's own weights
# for the library), checks the outputs with the models' own
# weights against onnxruntime and PyTorch eager and times them against PyTorch eager
# (tools/bench/gpu_bench.py, suite `exported`), and runs the depthwise suite against cuDNN. JSON and
# markdown go to $OUT.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado cortado_caffe_pb2
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
/usr/bin/python3 tools/bench/export_torchvision.py "$models" 1 >/dev/null
networks="alexnet resnet18 resnet50 squeezenet1_1 mobilenet_v2 mobilenet_v3_small efficientnet_b0 regnet_y_400mf shufflenet_v2_x1_0"

rm -rf .device && mkdir -p .device/bin .device/lib .device/stage
cp build/tools/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
opencl_loader=$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')
cp "$opencl_loader" .device/lib/libOpenCL.so.1
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > .device/nvidia.icd
cp tools/bench/gpu_bench.py tools/bench/export_torchvision.py build/python/caffe_pb2.py .device/

declare -A names=([cuda]=cuda-h100 [opencl]=opencl-nvidia)
{
  echo 'set -u; cd "$(dirname "$0")"; export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}'
  echo 'export OCL_ICD_VENDORS=$PWD/nvidia.icd OCL_ICD_FILENAMES=/usr/local/nvidia/lib64/libnvidia-opencl.so.1'
  echo 'nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; status=0'
  echo 'mkdir -p stage && xz -dc stage.tar.xz | tar -C stage -xf -'
} > .device/run.sh
for api in cuda opencl; do
  target=${names[$api]}
  halide_target=$(sed -n 's/^halide_target = //p' targets/$target.target)
  dir=.device/stage/exported-$api
  mkdir -p "$dir"
  cases=""
  for net in $networks; do
    gflop=$(build/tools/cortado info "$models/$net.onnx" --input-shape 1,3,224,224 | sed -n 's/^total: \([0-9.]*\) GFLOP.*/\1/p')
    for batch in 1 20; do
      build/tools/cortado compile "$models/$net.onnx" --target "$target" --input-shape $batch,3,224,224 \
        --name net --shared -o "$dir/$net-b$batch" >/dev/null
      find "$dir/$net-b$batch" -type f ! -name libnet.so -delete
      cases="$cases${cases:+,}{\"name\": \"$net b$batch\", \"network\": \"$net\", \"batch\": $batch, \"seed\": 1, \"library\": \"$net-b$batch/libnet.so\", \"megabytes\": 0, \"gflop\": $(awk "BEGIN { print $gflop * $batch }")}"
    done
    echo "bin/prebuilt_network_check stage/exported-$api/$net.onnx stage/exported-$api/$net-b1/libnet.so $halide_target --input-shape 1,3,224,224 --iterations 20 --write-model-weights stage/exported-$api/$net.caffemodel || status=1" >> .device/run.sh.checks
  done
  echo "{\"suite\": \"exported\", \"target\": \"$target\", \"halide_target\": \"$halide_target\", \"peak_gflops\": 0, \"bandwidth_gbs\": 0, \"cases\": [$cases]}" > "$dir/exported.json"
  echo "python3 export_torchvision.py stage/exported-$api 1 > /dev/null || status=1" >> .device/run.sh
  build/tools/cortado bench conv --target "$target" --set models/bench/mobilenet-v2-depthwise.csv \
    --prepare .device/stage/depthwise-$api >/dev/null
done
cat .device/run.sh.checks >> .device/run.sh && rm .device/run.sh.checks
cat >> .device/run.sh <<'RUN'
for api in cuda opencl; do
  python3 gpu_bench.py stage/exported-$api exported ${OUT:-/tmp}/exported-$api.json 20 || status=1
  python3 gpu_bench.py stage/depthwise-$api conv ${OUT:-/tmp}/depthwise-$api.json 30 || status=1
done
exit $status
RUN
tar -C .device/stage -cf - . | xz -6 -T2 > .device/stage.tar.xz
rm -rf .device/stage
du -sh .device
