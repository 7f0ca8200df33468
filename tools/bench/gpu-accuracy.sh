#!/usr/bin/env bash
# Prepares issue 47's accuracy floors on the GPU (docs/precision.md), for CUDA and NVIDIA OpenCL:
# - the trained digits network (models/digits) through both frontends: int8, calibrated here by
#   each method on the first 100 held-out images (`cortado quantize`, on this CPU: the GPU is not
#   here; the scales do not depend on the family that runs them), and fp16 (OpenCL
#   with the cl_half feature); all 397 held-out images in one batch, every blob checked against
#   the reference, then the accuracy against the trainer's fp32 (tools/digits_accuracy.py);
# - torchvision's exported networks ($NETS, default the nine of `bench exported`) in fp16 against
#   fp32 on CUDA at batch 1, each library checked blob by blob, the two outputs compared (relative
#   L2, top-1). The graphs travel without their weights; there each takes the weights of the
#   machine's own export from the same seed (tools/bench/onnx_graph_only.py);
# - onnxruntime's QDQ models of the small exported networks ($QDQ_NETS), compiled with
#   --precision int8, against onnxruntime running the same file there
#   (tools/bench/quantized_agreement.py: within one output step on >= 99% of outputs, top-1).
# Gathered into .device/ (ignored by git) with the libHalide-free checker; then, through the
# device tool, with carry [".device"]:
#     bash .device/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado
nets=${NETS:-alexnet resnet18 resnet50 squeezenet1_1 mobilenet_v2 densenet121 mobilenet_v3_small mobilenet_v3_large efficientnet_b0}
qdq_nets=${QDQ_NETS:-squeezenet1_1 mobilenet_v2 resnet18 mobilenet_v3_small efficientnet_b0}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

rm -rf .device && mkdir -p .device/bin .device/lib .device/stage/digits .device/stage/exported .device/graphs
cp build/tools/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
cp "$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')" .device/lib/libOpenCL.so.1
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > .device/nvidia.icd
cp tools/digits_accuracy.py tools/bench/quantized_agreement.py tools/bench/export_torchvision.py \
  tools/bench/onnx_graph_only.py .device/
cp models/digits/* .device/stage/digits/
cuda=$(sed -n 's/^halide_target = //p' targets/cuda-h100.target)
opencl=$(sed -n 's/^halide_target = //p' targets/opencl-nvidia.target)
{
  echo 'set -u; cd "$(dirname "$0")"; export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}'
  echo 'export OCL_ICD_VENDORS=$PWD/nvidia.icd OCL_ICD_FILENAMES=/usr/local/nvidia/lib64/libnvidia-opencl.so.1'
  echo 'nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; status=0'
  echo 'mkdir -p stage && xz -dc stage.tar.xz | tar -C stage -xf -; d=stage/digits; e=stage/exported'
  echo 'check() { local log=$1; shift; bin/prebuilt_network_check "$@" --iterations 0 > $log 2>&1 || { status=1; tail -3 $log; }; grep -q PASS $log || { status=1; echo "no PASS: $log"; }; }'
} > .device/run.sh

library() {  # library DIR TARGET MODEL [cortado compile options...]
  local dir=$1 target=$2 model=$3; shift 3
  build/tools/cortado compile "$model" --target "$target" "$@" --name net --shared -o "$dir" >/dev/null
  find "$dir" -type f ! -name libnet.so -delete
}

# Digits: int8 by each calibration method, and fp16, through both frontends, on both APIs.
count=$(/usr/bin/python3 -c "import numpy; print(numpy.load('models/digits/heldout_images.npy').shape[0])")
/usr/bin/python3 -c "import numpy; numpy.save('$scratch/calibration.npy', numpy.load('models/digits/heldout_images.npy')[:100])"
echo "echo 'digits ($count held-out images): frontend, API, precision, method, check, accuracy'" >> .device/run.sh
for frontend in caffe onnx; do
  model=models/digits/lenet.onnx weights=--own-weights quantize_weights=""
  if [ $frontend = caffe ]; then
    model=models/digits/lenet.prototxt weights="--weights \$d/lenet.caffemodel"
    quantize_weights="--weights models/digits/lenet.caffemodel"
  fi
  for api in cuda opencl; do
    target=cuda-h100 halide=$cuda
    [ $api = opencl ] && target=opencl-nvidia halide=$opencl
    for method in minmax percentile entropy; do
      name=$frontend-$api-int8-$method
      build/tools/cortado quantize "$model" $quantize_weights --calibrate "$scratch/calibration.npy" --method $method \
        -o .device/stage/digits/$name.qparams | tail -1
      library .device/stage/digits/$name $target "$model" --batch $count --qparams .device/stage/digits/$name.qparams
      echo "check $name.log \$d/${model##*/} \$d/$name/libnet.so $halide --batch $count --qparams \$d/$name.qparams $weights --input \$d/heldout_images.npy --output $name.npy; echo \"$frontend $api int8 $method \$(grep -o 'PASS\|FAIL' $name.log | head -1) \$(python3 digits_accuracy.py $name.npy \$d/trainer.json)\"" >> .device/run.sh
    done
    name=$frontend-$api-fp16
    fp16_halide=$halide
    [ $api = opencl ] && fp16_halide=$halide-cl_half
    library .device/stage/digits/$name "$fp16_halide" "$model" --batch $count --precision fp16
    echo "check $name.log \$d/${model##*/} \$d/$name/libnet.so $fp16_halide --batch $count --precision fp16 $weights --input \$d/heldout_images.npy --output $name.npy; echo \"$frontend $api fp16 - \$(grep -o 'PASS\|FAIL' $name.log | head -1) \$(python3 digits_accuracy.py $name.npy \$d/trainer.json)\"" >> .device/run.sh
  done
done

# Exported networks, fp16 against fp32 on CUDA at batch 1.
cat > .device/fp16_against_fp32.py <<'PY'
import sys
import numpy as np
a, b = (np.load(p).astype(np.float64) for p in sys.argv[1:3])
top1 = bool((a.reshape(len(a), -1).argmax(1) == b.reshape(len(b), -1).argmax(1)).all())
print("relative L2 %.2e, top-1 equal: %s, largest |fp32 output| %.1e"
      % (np.linalg.norm(a - b) / max(np.linalg.norm(a), 1e-30), top1, np.abs(a).max()))
PY
/usr/bin/python3 tools/bench/export_torchvision.py "$scratch/exported" 1 $nets >/dev/null
echo "python3 export_torchvision.py \$e 1 $nets > /dev/null || status=1" >> .device/run.sh
echo 'for g in graphs/*.onnx; do python3 onnx_graph_only.py fill $g $e/${g##*/} $e/${g##*/} || status=1; done' >> .device/run.sh
echo 'echo "exported networks on CUDA, fp16 against fp32 (batch 1): network, checks, relative L2, top-1 equal"' >> .device/run.sh
for net in $nets; do
  python3 tools/bench/onnx_graph_only.py strip "$scratch/exported/$net.onnx" .device/graphs/$net.onnx
  for precision in fp32 fp16; do
    library .device/stage/exported/$net-$precision cuda-h100 "$scratch/exported/$net.onnx" --input-shape 1,3,224,224 --precision $precision
    flag=""; [ $precision = fp16 ] && flag="--precision fp16"
    echo "check $net-$precision.log \$e/$net.onnx \$e/$net-$precision/libnet.so $cuda --input-shape 1,3,224,224 $flag --own-weights --input \$e/$net.input.npy --output $net-$precision.npy &" >> .device/run.sh
  done
  echo "echo $net \$(grep -o 'PASS\|FAIL' $net-fp32.log | head -1)/\$(grep -o 'PASS\|FAIL' $net-fp16.log | head -1) \$(python3 fp16_against_fp32.py $net-fp32.npy $net-fp16.npy)" >> $scratch/fp16-report.sh
done
# The checks run side by side (each on the CPU's double-precision reference), then the report.
echo 'wait' >> .device/run.sh
cat $scratch/fp16-report.sh >> .device/run.sh

# onnxruntime's QDQ models in int8 on CUDA and NVIDIA OpenCL at batch 1, against onnxruntime there.
echo 'echo "QDQ models in int8 (batch 1): network, API, check, agreement with onnxruntime"' >> .device/run.sh
for net in $qdq_nets; do
  python3 tools/bench/onnxruntime_quantize.py "$scratch/exported/$net.onnx" .device/stage/exported/$net-qdq.onnx 4
  cp "$scratch/exported/$net.input.npy" .device/stage/exported/$net-qdq.input.npy
  for api in cuda opencl; do
    target=cuda-h100 halide=$cuda
    [ $api = opencl ] && target=opencl-nvidia halide=$opencl
    library .device/stage/exported/$net-qdq-$api $target .device/stage/exported/$net-qdq.onnx --input-shape 1,3,224,224 --precision int8
    echo "check $net-qdq-$api.log \$e/$net-qdq.onnx \$e/$net-qdq-$api/libnet.so $halide --input-shape 1,3,224,224 --precision int8 --own-weights --input \$e/$net-qdq.input.npy --output $net-qdq-$api.npy &" >> .device/run.sh
    echo "echo \"$net $api \$(grep -o 'PASS\|FAIL' $net-qdq-$api.log | head -1) \$(python3 quantized_agreement.py \$e/$net-qdq.onnx \$e/$net-qdq.input.npy $net-qdq-$api.npy)\" || status=1" >> $scratch/qdq-report.sh
  done
done
echo 'wait' >> .device/run.sh
cat $scratch/qdq-report.sh >> .device/run.sh
echo 'tar -czf ${OUT:-/tmp}/accuracy-logs.tgz *.log; exit $status' >> .device/run.sh
tar -C .device/stage -cf - . | xz -6 -T2 > .device/stage.tar.xz
rm -rf .device/stage
du -sh .device
