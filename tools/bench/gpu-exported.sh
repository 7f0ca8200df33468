#!/usr/bin/env bash
# Prepares the GPU run for the exported networks: torchvision's fifteen networks
# (tools/bench/export_torchvision.py, seed 1; the ten of issue 44 also at opsets 17 and 21)
# compiled here for CUDA and for NVIDIA OpenCL at batch 1 and 20, the ONNX test models of
# tests/onnx/make_models.py, and MobileNetV2's depthwise layers (models/bench/mobilenet-v2-depthwise.csv)
# prepared for both APIs' benchmarks; gathered into .device/ (ignored by git) with the
# libHalide-free checker. Then run, through the device tool, with carry [".device"]:
#     bash .device/run.sh [checks | cuda]
# (NETS="resnet50 mobilenet_v2" tools/bench/gpu-exported.sh prepares only those networks.)
# On the GPU machine it regenerates the models from the same seed with that machine's PyTorch.
# Their weights never travel: the graphs compiled here do, and take those weights by name
# (tools/bench/onnx_graph_only.py; another PyTorch may write another graph). It checks every
# blob of each network and test model against the double-precision reference on both APIs with
# the models' own weights (prebuilt_network_check --own-weights, which also writes them for the
# library), and exports tests/onnx/export_dynamo.py's models with PyTorch's current exporter into
# $OUT/dynamo-NAME.tar. Then, without `checks`, it checks the outputs against onnxruntime and
# PyTorch eager, times them against PyTorch eager (tools/bench/gpu_bench.py, suite `exported`),
# and runs the depthwise suite against cuDNN; with `cuda`, the checks and CUDA's timing alone
# (each CUDA library also kernel by kernel, and torch.compile(mode="reduce-overhead") for the
# networks in $GPU_BENCH_REDUCE_OVERHEAD, comma-separated). JSON and markdown go to $OUT. A library that
# compiles to the same bytes from another opset's file is shipped once and checked with each file.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado cortado_caffe_pb2
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
classic="alexnet resnet18 resnet50 squeezenet1_1 mobilenet_v2"
newer="mobilenet_v3_small mobilenet_v3_large efficientnet_b0 shufflenet_v2_x1_0 densenet121 regnet_y_400mf
       resnext50_32x4d vgg11_bn fcn_resnet50 lraspp_mobilenet_v3_large"
# $NETS (space-separated) keeps only those networks, for a device call that must stay short.
if [ -n "${NETS:-}" ]; then
  keep() { for n in $1; do case " $NETS " in *" $n "*) echo -n "$n " ;; esac; done; }
  all=$(echo $classic $newer)
  classic=$(keep "$classic") newer=$(keep "$newer")
  [ -n "$classic$newer" ] || { echo "gpu-exported: \$NETS names none of: $all" >&2; exit 2; }
fi
# (export_torchvision.py with no names exports every network: only call it with some.)
[ -z "$classic" ] || /usr/bin/python3 tools/bench/export_torchvision.py "$models" 1 $classic >/dev/null
if [ -n "$newer" ]; then
  /usr/bin/python3 tools/bench/export_torchvision.py "$models" 1 --opsets 13,17 $newer >/dev/null 2>&1
  python3 tests/onnx/convert_opset.py "$models" 17 21 $newer
fi
python3 tests/onnx/make_models.py "$models/tests" 1 >/dev/null

rm -rf .device && mkdir -p .device/bin .device/lib .device/stage .device/models
cp build/tools/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
opencl_loader=$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')
cp "$opencl_loader" .device/lib/libOpenCL.so.1
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > .device/nvidia.icd
cp tools/bench/gpu_bench.py tools/bench/export_torchvision.py tests/onnx/convert_opset.py tests/onnx/export_dynamo.py \
  tools/bench/onnx_graph_only.py build/python/caffe_pb2.py .device/
# The graphs the libraries are compiled from travel without their weights; there each takes the
# weights of the machine's own export (tools/bench/onnx_graph_only.py).
mkdir -p .device/graphs
for f in "$models"/*.onnx; do python3 tools/bench/onnx_graph_only.py strip "$f" .device/graphs/"${f##*/}"; done
test_models="activations rearranged rearranged_18 resized one_dimensional normalisations log_softmaxes
             log_softmaxes_11 folded newest legacy arithmetic"
for m in $test_models; do cp "$models/tests/$m.onnx" .device/models/; done

declare -A names=([cuda]=cuda-h100 [opencl]=opencl-nvidia)
{
  echo 'set -u; cd "$(dirname "$0")"; export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}'
  echo 'export OCL_ICD_VENDORS=$PWD/nvidia.icd OCL_ICD_FILENAMES=/usr/local/nvidia/lib64/libnvidia-opencl.so.1'
  echo 'nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; status=0'
  echo 'mkdir -p stage && xz -dc stage.tar.xz | tar -C stage -xf -'
  echo 'm=stage/exported-cuda'
  [ -z "$classic" ] || echo 'python3 export_torchvision.py $m 1 '"$(echo $classic)"' > /dev/null || status=1'
  if [ -n "$newer" ]; then
    echo 'python3 export_torchvision.py $m 1 --opsets 13,17 '"$(echo $newer)"' > /dev/null 2>&1 || status=1'
    echo 'python3 convert_opset.py $m 17 21 '"$(echo $newer)"' || status=1'
  fi
  echo 'for g in graphs/*.onnx; do python3 onnx_graph_only.py fill $g $m/${g##*/} $m/${g##*/} || status=1; done'
  echo 'for f in $m/*.onnx $m/*.npy; do ln -sf ../exported-cuda/${f##*/} stage/exported-opencl/; done'
} > .device/run.sh
for api in cuda opencl; do
  target=${names[$api]}
  halide_target=$(sed -n 's/^halide_target = //p' targets/$target.target)
  dir=.device/stage/exported-$api
  # The replay check (a CUDA graph's capture and replay) reruns the reference: CUDA's alone, once
  # per network and test model, so that the checks stay inside one device call.
  replays=0; [ $api = cuda ] && replays=1
  mkdir -p "$dir"
  cases=""
  for net in $classic $newer; do
    gflop=$(build/tools/cortado info "$models/$net.onnx" --input-shape 1,3,224,224 | sed -n 's/^total: \([0-9.]*\) GFLOP.*/\1/p')
    for batch in 1 20; do
      build/tools/cortado compile "$models/$net.onnx" --target "$target" --input-shape $batch,3,224,224 \
        --name net --shared -o "$dir/$net-b$batch" >/dev/null
      find "$dir/$net-b$batch" -type f ! -name libnet.so -delete
      cases="$cases${cases:+,}{\"name\": \"$net b$batch\", \"network\": \"$net\", \"batch\": $batch, \"seed\": 1, \"library\": \"$net-b$batch/libnet.so\", \"megabytes\": 0, \"gflop\": $(awk "BEGIN { print $gflop * $batch }")}"
    done
    echo "bin/prebuilt_network_check stage/exported-$api/$net.onnx stage/exported-$api/$net-b1/libnet.so $halide_target --input-shape 1,3,224,224 --own-weights --iterations 5 --replays $replays --write-model-weights stage/exported-$api/$net.caffemodel" >> .device/checks.txt
    case " $(echo $newer) " in *" $net "*) ;; *) continue ;; esac
    for opset in 17 21; do
      library=$net-b1
      build/tools/cortado compile "$models/$net-opset$opset.onnx" --target "$target" --input-shape 1,3,224,224 \
        --name net --shared -o "$dir/$net-opset$opset-b1" >/dev/null
      if cmp -s "$dir/$net-opset$opset-b1/libnet.so" "$dir/$net-b1/libnet.so"; then
        rm -rf "$dir/$net-opset$opset-b1"
      else
        find "$dir/$net-opset$opset-b1" -type f ! -name libnet.so -delete
        library=$net-opset$opset-b1
      fi
      echo "bin/prebuilt_network_check stage/exported-$api/$net-opset$opset.onnx stage/exported-$api/$library/libnet.so $halide_target --input-shape 1,3,224,224 --own-weights --iterations 1 --replays 0" >> .device/checks.txt
    done
  done
  for m in $test_models; do
    build/tools/cortado compile "$models/tests/$m.onnx" --target "$target" --name net --shared -o "$dir/test-$m" >/dev/null
    find "$dir/test-$m" -type f ! -name libnet.so -delete
    echo "bin/prebuilt_network_check models/$m.onnx stage/exported-$api/test-$m/libnet.so $halide_target --own-weights --iterations 1 --replays $replays" >> .device/checks.txt
  done
  echo "{\"suite\": \"exported\", \"target\": \"$target\", \"halide_target\": \"$halide_target\", \"peak_gflops\": 0, \"bandwidth_gbs\": 0, \"cases\": [$cases]}" > "$dir/exported.json"
  build/tools/cortado bench conv --target "$target" --set models/bench/mobilenet-v2-depthwise.csv \
    --prepare .device/stage/depthwise-$api >/dev/null
done
# The checks run eight at a time (each computes its reference on the CPU, FCN's for a minute);
# their logs go to $OUT/checks.log in order.
cat >> .device/run.sh <<'RUN'
rm -rf logs && mkdir logs && split -l 1 -d -a 3 checks.txt logs/check.
ls logs/check.* | xargs -P 8 -I F sh -c 'sh F > F.log 2>&1 || echo "FAILED: $(cat F)" >> logs/failed'
cat logs/check.*.log > ${OUT:-/tmp}/checks.log
grep -h "PASS\|FAIL" logs/check.*.log | tail -3; grep -c "PASS" ${OUT:-/tmp}/checks.log
[ -s logs/failed ] && { cat logs/failed; status=1; }
if [ "${1:-}" != cuda ]; then
  mkdir -p dynamo && python3 export_dynamo.py dynamo mobilenet_v3_small shufflenet_v2_x1_0 || status=1
  for n in todays_ops mobilenet_v3_small shufflenet_v2_x1_0; do tar -cf ${OUT:-/tmp}/dynamo-$n.tar dynamo/$n.*; done
fi
[ "${1:-}" = checks ] && exit $status
if [ "${1:-}" = cuda ]; then
  python3 gpu_bench.py stage/exported-cuda exported ${OUT:-/tmp}/exported-cuda.json 20 || status=1
  exit $status
fi
for api in cuda opencl; do
  python3 gpu_bench.py stage/exported-$api exported ${OUT:-/tmp}/exported-$api.json 20 || status=1
  python3 gpu_bench.py stage/depthwise-$api conv ${OUT:-/tmp}/depthwise-$api.json 30 || status=1
done
exit $status
RUN
tar -C .device/stage -cf - . | xz -6 -T2 > .device/stage.tar.xz
rm -rf .device/stage
du -sh .device
