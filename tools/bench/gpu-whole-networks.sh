#!/usr/bin/env bash
# Prepares issue 45's GPU floors: the seven Caffe networks of ../shared/models at batch 1, 5 and
# 20 (the 21 cases of `bench nets`) and torchvision's exported networks ($NETS, default the nine
# of `bench exported`) at batch 1 and 20, compiled here for CUDA with the shipped records, each
# also with --no-fusion; gathered into .device/ (ignored by git) with the libHalide-free checker.
# Then, through the device tool, with carry [".device"], one call each (each fits a call):
#     bash .device/run.sh caffe [NAMES]      # the 21 cases against eager and reduce-overhead
#     bash .device/run.sh exported [NAMES]   # every blob checked at batch 1, then the same timing
# NAMES (space-separated networks) keeps only those, for calls that must stay under ten minutes.
# tools/bench/gpu_bench.py times each library, its unfused build and the peers on the same
# input, copies included; JSON and markdown go to $OUT.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado cortado_caffe_pb2
nets=${NETS:-alexnet resnet18 resnet50 squeezenet1_1 mobilenet_v2 densenet121 mobilenet_v3_small mobilenet_v3_large efficientnet_b0}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

rm -rf .device && mkdir -p .device/bin .device/lib .device/stage/exported .device/graphs
cp build/tools/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
cp tools/bench/gpu_bench.py tools/bench/export_torchvision.py tools/bench/onnx_graph_only.py build/python/caffe_pb2.py \
  .device/
cuda=$(sed -n 's/^halide_target = //p' targets/cuda-h100.target)

# The Caffe networks: fused and unfused builds of each case, one manifest.
build/tools/cortado bench nets --target cuda-h100 --batch 1,5,20 --no-fusion --prepare .device/stage/nets

# The exported networks, at batch 1 and 20, fused and unfused.
/usr/bin/python3 tools/bench/export_torchvision.py "$scratch" 1 $nets >/dev/null
cases=""
for net in $nets; do
  python3 tools/bench/onnx_graph_only.py strip "$scratch/$net.onnx" .device/graphs/$net.onnx
  gflop=$(build/tools/cortado info "$scratch/$net.onnx" --input-shape 1,3,224,224 | sed -n 's/^total: \([0-9.]*\) GFLOP.*/\1/p')
  for batch in 1 20; do
    for build in fused unfused; do
      flag=""; [ $build = unfused ] && flag=--no-fusion
      dir=.device/stage/exported/$net-b$batch/$build
      build/tools/cortado compile "$scratch/$net.onnx" --target cuda-h100 --input-shape $batch,3,224,224 $flag \
        --name net --shared -o $dir >/dev/null
      find $dir -type f ! -name libnet.so -delete
    done
    cases="$cases${cases:+,}{\"name\": \"$net b$batch\", \"network\": \"$net\", \"batch\": $batch, \"seed\": 1,
      \"library\": \"$net-b$batch/fused/libnet.so\", \"unfused_library\": \"$net-b$batch/unfused/libnet.so\",
      \"megabytes\": 0, \"gflop\": $(awk "BEGIN { print $gflop * $batch }")}"
  done
done
echo "{\"suite\": \"exported\", \"target\": \"cuda-h100\", \"halide_target\": \"$cuda\", \"peak_gflops\": 0,
  \"bandwidth_gbs\": 0, \"cases\": [$cases]}" > .device/stage/exported/exported.json

cat > .device/run.sh <<EOF
set -u; cd "\$(dirname "\$0")"; export LD_LIBRARY_PATH=\$PWD/lib:\${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; status=0
[ -d stage ] || { mkdir -p stage && xz -dc stage.tar.xz | tar -C stage -xf -; }
nets="$(echo $nets)"
# keep DIR SUITE NAMES: DIR/SUITE.json lists only the cases of those networks (all without NAMES).
keep() {
  [ -f \$1/\$2-all.json ] || cp \$1/\$2.json \$1/\$2-all.json
  python3 -c "import json, sys; s = json.load(open(sys.argv[1])); names = sys.argv[3].split()
s['cases'] = [c for c in s['cases'] if not names or c['name'].split()[0] in names]; json.dump(s, open(sys.argv[2], 'w'))" \
    \$1/\$2-all.json \$1/\$2.json "\$3"
}
case "\${1:-}" in
  caffe)
    keep stage/nets nets "\${2:-}"
    python3 gpu_bench.py stage/nets nets \${OUT:-/tmp}/nets.json 20 | tail -40 || status=1 ;;
  exported)
    m=stage/exported
    [ -z "\${2:-}" ] || nets="\$2"
    keep \$m exported "\${2:-}"
    python3 export_torchvision.py \$m 1 \$nets > /dev/null || status=1
    for g in graphs/*.onnx; do python3 onnx_graph_only.py fill \$g \$m/\${g##*/} \$m/\${g##*/} || status=1; done
    for n in \$nets; do
      bin/prebuilt_network_check \$m/\$n.onnx \$m/\$n-b1/fused/libnet.so $cuda --input-shape 1,3,224,224 \\
        --own-weights --iterations 2 --replays 1 --write-model-weights \$m/\$n.caffemodel > check-\$n.log 2>&1 &
      bin/prebuilt_network_check \$m/\$n.onnx \$m/\$n-b1/unfused/libnet.so $cuda --input-shape 1,3,224,224 \\
        --own-weights --iterations 2 --replays 1 --no-fusion > check-\$n-unfused.log 2>&1 &
    done; wait
    grep -h "PASS\|FAIL" check-*.log; cat check-*.log > \${OUT:-/tmp}/checks.log
    GPU_BENCH_REDUCE_OVERHEAD=\$(echo \$nets | tr ' ' ,) python3 gpu_bench.py \$m exported \${OUT:-/tmp}/exported.json 20 \\
      | tail -40 || status=1 ;;
  *) echo "usage: run.sh caffe|exported" >&2; exit 2 ;;
esac
exit \$status
EOF
tar -C .device/stage -cf - . | xz -6 -T2 > .device/stage.tar.xz
rm -rf .device/stage
du -sh .device
