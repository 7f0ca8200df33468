#!/usr/bin/env bash
# Prepares the GPU run: compiles AlexNet, GoogLeNet, the op cases, the benchmark suites and the
# schedule-knob sweep here for CUDA and for OpenCL (Halide emits PTX/OpenCL C without a GPU),
# and gathers what the lent GPU machine needs into .device/ (ignored by git): the libraries
# (the benchmark ones xz-compressed to fit the 64 MiB carry), the prototxts, the libHalide-free
# checker and its libraries, an OpenCL ICD file for NVIDIA's driver, and .device/run.sh. Then
# run, through the device tool, with carry [".device"]:
#     bash .device/run.sh
# It checks every blob of every network against the reference on CUDA and on NVIDIA OpenCL,
# runs the conv and sgemm suites, AlexNet's five convolutions (issue 4's floor) and the knob sweep
# against cuDNN/cuBLAS (tools/bench/gpu_bench.py), and writes JSON and markdown into $OUT. Plot here with tools/bench/bench_plots.py.
# It also runs the non-finite cases (tests/non_finite/) on both APIs.
#     tools/bench/gpu-check.sh [--quick | --checks-only | --gemm]
#       --quick: the CI-sized subsets of the conv, sgemm and nets suites
#       --checks-only: the correctness checks alone (networks with their per-layer times, ops,
#                      non-finite cases); no benchmark suites, so no `run.sh nets` either
#       --gemm: the checks, then the conv suite (CUDA, and NVIDIA OpenCL for the API ratio), the
#               sgemm suite and the nets suite only (no staged conv suite, floors or knob sweep):
#               what the GEMM's and the convolution variants' floors are read from; the nets run
#               one batch per call, `bash .device/run.sh nets B`, the OpenCL conv suite in a call
#               of its own, `bash .device/run.sh ocl-conv`
set -euo pipefail
usage="usage: tools/bench/gpu-check.sh [--quick | --checks-only | --gemm]"
quick="" checks_only="" gemm_only=""
case "${1:-}" in
  "") ;;
  --quick) quick="--quick" ;;
  --checks-only) checks_only=yes ;;
  --gemm) gemm_only=yes ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/tools/bootstrap.sh" --all
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado cortado_caffe_pb2
shared="$root/../shared/models"
[ -d "$shared" ] || { echo "gpu-check: needs ../shared/models beside the checkout" >&2; exit 1; }

rm -rf .device && mkdir -p .device/bin .device/lib .device/models
cp build/tools/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
opencl_loader=$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')
cp "$opencl_loader" .device/lib/libOpenCL.so.1
cp "$opencl_loader" .device/lib/libOpenCL.so
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > .device/nvidia.icd
cp "$shared"/{alexnet,googlenet,lenet}.prototxt models/bench/overfeat_l6.prototxt .device/models/
cp tools/bench/gpu_bench.py build/python/caffe_pb2.py .device/

# Compiles a network for the GPU into a shared library in DIR, keeping only what the device
# needs: device_library DIR TARGET_NAME PROTOTXT [cortado compile options...]
device_library() {
  local dir=$1 target=$2 net=$3; shift 3
  build/tools/cortado compile "$net" --target "$target" "$@" --name net --shared -o "$dir" >/dev/null
  rm -f "$dir"/*.a "$dir"/*_glue.cc "$dir"/*.h
}

# Op cases: small nets covering the ops the two networks do not use.
cat > .device/models/ops_mix.prototxt <<'NET'
name: "ops_mix"
input: "data"
input_shape { dim: 2 dim: 6 dim: 9 dim: 11 }
layer { name: "bn" type: "BatchNorm" bottom: "data" top: "bn" }
layer { name: "sc" type: "Scale" bottom: "bn" top: "sc" scale_param { bias_term: true filler { type: "gaussian" } } }
layer { name: "a" type: "ReLU" bottom: "sc" top: "a" relu_param { negative_slope: 0.2 } }
layer { name: "p" type: "Pooling" bottom: "data" top: "p" pooling_param { pool: AVE kernel_size: 3 stride: 1 pad: 1 } }
layer { name: "e" type: "Eltwise" bottom: "a" bottom: "p" bottom: "data" top: "e" eltwise_param { operation: SUM coeff: 0.5 coeff: -1 coeff: 2 } }
layer { name: "m" type: "Eltwise" bottom: "e" bottom: "p" top: "m" eltwise_param { operation: MAX } }
layer { name: "n" type: "LRN" bottom: "m" top: "n" lrn_param { local_size: 3 alpha: 0.3 norm_region: WITHIN_CHANNEL } }
layer { name: "c" type: "Convolution" bottom: "n" top: "c" convolution_param { num_output: 10 kernel_size: 3 dilation: 2 group: 2 weight_filler { type: "xavier" } bias_filler { type: "gaussian" } } }
layer { name: "f" type: "Flatten" bottom: "c" top: "f" }
layer { name: "ip" type: "InnerProduct" bottom: "f" top: "ip" inner_product_param { num_output: 7 transpose: true weight_filler { type: "xavier" } } }
layer { name: "s" type: "Softmax" bottom: "ip" top: "s" }
NET

# The GPU GEMM's uses in one net: 1x1 layers with pixels and with channels along the columns, a
# fully-connected convolution and an InnerProduct at 48 rows (the square form), one at 3 (the
# skinny form, K split into shares).
cat > .device/models/gemm_mix.prototxt <<'NET'
name: "gemm_mix"
input: "data"
input_shape { dim: 48 dim: 16 dim: 30 dim: 30 }
layer { name: "c1" type: "Convolution" bottom: "data" top: "c1" convolution_param { num_output: 40 kernel_size: 1 weight_filler { type: "xavier" } bias_filler { type: "gaussian" } } }
layer { name: "r1" type: "ReLU" bottom: "c1" top: "c1" }
layer { name: "p1" type: "Pooling" bottom: "c1" top: "p1" pooling_param { pool: MAX kernel_size: 3 stride: 3 } }
layer { name: "c2" type: "Convolution" bottom: "p1" top: "c2" convolution_param { num_output: 36 kernel_size: 1 weight_filler { type: "xavier" } } }
layer { name: "c3" type: "Convolution" bottom: "c2" top: "c3" convolution_param { num_output: 200 kernel_size: 10 weight_filler { type: "xavier" } bias_filler { type: "gaussian" } } }
layer { name: "r3" type: "ReLU" bottom: "c3" top: "c3" relu_param { negative_slope: 0.1 } }
layer { name: "ip" type: "InnerProduct" bottom: "c3" top: "ip" inner_product_param { num_output: 130 weight_filler { type: "xavier" } } }
layer { name: "s" type: "Softmax" bottom: "ip" top: "s" }
NET
# Residual sums fused into convolutions (3x3, 1x1 and depthwise, each the variant its shape gets)
# and squeeze-and-excitation's x times its gate as a two-bottom Scale.
cat > .device/models/residual_mix.prototxt <<'NET'
name: "residual_mix"
input: "data"
input_shape { dim: 2 dim: 16 dim: 14 dim: 14 }
layer { name: "a" type: "Convolution" bottom: "data" top: "a" convolution_param { num_output: 16 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } bias_filler { type: "gaussian" } } }
layer { name: "ra" type: "ReLU" bottom: "a" top: "a" }
layer { name: "b" type: "Convolution" bottom: "a" top: "b" convolution_param { num_output: 16 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } } }
layer { name: "e1" type: "Eltwise" bottom: "data" bottom: "b" top: "e1" }
layer { name: "r1" type: "ReLU" bottom: "e1" top: "e1" }
layer { name: "c" type: "Convolution" bottom: "e1" top: "c" convolution_param { num_output: 16 kernel_size: 1 weight_filler { type: "xavier" } bias_filler { type: "gaussian" } } }
layer { name: "e2" type: "Eltwise" bottom: "e1" bottom: "c" top: "e2" }
layer { name: "d" type: "Convolution" bottom: "e2" top: "d" convolution_param { num_output: 16 kernel_size: 3 pad: 1 group: 16 weight_filler { type: "xavier" } } }
layer { name: "e3" type: "Eltwise" bottom: "d" bottom: "e2" top: "e3" }
layer { name: "r3" type: "ReLU" bottom: "e3" top: "e3" relu_param { negative_slope: 0.1 } }
layer { name: "p" type: "Pooling" bottom: "e3" top: "p" pooling_param { pool: AVE global_pooling: true } }
layer { name: "fc" type: "InnerProduct" bottom: "p" top: "fc" inner_product_param { num_output: 16 weight_filler { type: "xavier" } } }
layer { name: "g" type: "Sigmoid" bottom: "fc" top: "fc" }
layer { name: "s" type: "Scale" bottom: "e3" bottom: "fc" top: "s" scale_param { axis: 0 } }
NET
# A small convolution for racecheck with the staged variant forced: the one kernel family that
# stages through shared memory.
cat > .device/models/staged_conv.prototxt <<'NET'
name: "staged_conv"
input: "data"
input_shape { dim: 1 dim: 16 dim: 12 dim: 12 }
layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 32 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } } }
NET

# Libraries are compiled for the target descriptions (with their knob tables); the checker plans
# with the Halide target string.
declare -A names=([cuda]=cuda-h100 [opencl]=opencl-nvidia)
declare -A targets=([cuda]=$(sed -n 's/^halide_target = //p' targets/cuda-h100.target) [opencl]=$(sed -n 's/^halide_target = //p' targets/opencl-nvidia.target))
cases="alexnet:1 googlenet:1 alexnet:5 lenet:5 ops_mix:0 overfeat_l6:1 gemm_mix:0 gemm_mix:3 residual_mix:0"
{
  echo 'set -u; cd "$(dirname "$0")"; export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}'
  echo 'export OCL_ICD_VENDORS=$PWD/nvidia.icd OCL_ICD_FILENAMES=/usr/local/nvidia/lib64/libnvidia-opencl.so.1'
  echo 'nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; status=0'
  echo 'mkdir -p stage && for t in *.tar.xz; do xz -dc "$t" | tar -C stage -xf -; done'
  echo 'if [ "${1:-}" = nets ]; then python3 gpu_bench.py stage/bench nets ${OUT:-/tmp}/gpu-nets-b${2:?usage: run.sh nets BATCH}.json 20 $2; exit $?; fi'
  echo 'if [ "${1:-}" = ocl-conv ]; then python3 gpu_bench.py stage/ocl conv ${OUT:-/tmp}/gpu-conv-ocl.json 20; exit $?; fi'
} > .device/run.sh
# GoogLeNet at batch 2 writes its concatenations' slices a batch stride apart; on CUDA only, as
# NVIDIA OpenCL's GoogLeNet libraries would not fit the carry twice (PoCL checks it in CI).
for api in cuda opencl; do
  api_cases=$cases; [ $api = cuda ] && api_cases="$cases googlenet:2"
  for case in $api_cases; do
    net=${case%%:*}; batch=${case##*:}; dir=.device/$api/$net-b$batch
    batch_option=""; [ "$batch" != 0 ] && batch_option="--batch $batch"
    device_library "$dir" "${names[$api]}" .device/models/$net.prototxt $batch_option
    echo "bin/prebuilt_network_check models/$net.prototxt ${dir#.device/}/libnet.so ${targets[$api]} $batch_option --iterations 20 || status=1" >> .device/run.sh
  done
done
# The same CUDA libraries launched kernel by kernel, for the forward times against CUDA graphs.
for case in alexnet:1 googlenet:1 lenet:5 residual_mix:0; do
  net=${case%%:*}; batch=${case##*:}; batch_option=""; [ "$batch" != 0 ] && batch_option="--batch $batch"
  echo "(set -o pipefail; CORTADO_CUDA_GRAPHS=0 bin/prebuilt_network_check models/$net.prototxt cuda/$net-b$batch/libnet.so ${targets[cuda]} $batch_option --iterations 20 | grep -v '^  ') || status=1" >> .device/run.sh
done
# racecheck (compute-sanitizer) on the kernels that stage through shared memory (gpu_staged) and
# on the GEMM's, which by design use none (docs/PERFORMANCE.md records the command and result).
CORTADO_KNOBS=conv2d.variant=gpu_staged,conv2d.stage_channels=4 device_library .device/cuda/staged_conv "${names[cuda]}" .device/models/staged_conv.prototxt
{
  echo 'sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)'
  echo "\$sanitizer --tool racecheck --error-exitcode 9 bin/prebuilt_network_check models/staged_conv.prototxt cuda/staged_conv/libnet.so ${targets[cuda]} --iterations 1 || status=1"
  echo "\$sanitizer --tool racecheck --error-exitcode 9 bin/prebuilt_network_check models/gemm_mix.prototxt cuda/gemm_mix-b3/libnet.so ${targets[cuda]} --batch 3 --iterations 1 || status=1"
} >> .device/run.sh
# The non-finite cases, at their own shape and narrower than a vector (as non_finite_test runs
# them), xz-compressed.
mkdir -p .device/models/non_finite .device/stage
cp tests/non_finite/*.prototxt tests/non_finite/*.onnx .device/models/non_finite/
for api in cuda opencl; do
  for net in tests/non_finite/*.prototxt tests/non_finite/*.onnx; do
    for shape in "" 1,2,4,4; do
      case_name=$(basename "$net"); case_name=${case_name%.*}
      dir=non_finite/$api/$case_name${shape:+-narrow}
      device_library ".device/stage/$dir" "${names[$api]}" "$net" ${shape:+--input-shape $shape}
      echo "bin/prebuilt_network_check models/non_finite/$(basename "$net") stage/$dir/libnet.so ${targets[$api]} ${shape:+--input-shape $shape} --non-finite || status=1" >> .device/run.sh
    done
  done
done
tar -C .device/stage -cf - non_finite | xz -9 -T2 > .device/non_finite.tar.xz
rm -rf .device/stage
if [ -n "$checks_only" ]; then
  echo 'exit $status' >> .device/run.sh
  du -sh .device
  exit 0
fi
# The benchmark suites for CUDA, and the knob sweep of Overfeat L6 for each API: every variant
# is a separate library, timed and checked against cuDNN like a benchmark case.
mkdir -p .device/stage
build/tools/cortado bench conv --target cuda-h100 --prepare .device/stage/bench $quick
if [ -n "$gemm_only" ]; then
  build/tools/cortado bench sgemm --target cuda-h100 --prepare .device/stage/bench
  build/tools/cortado bench nets --target cuda-h100 --prepare .device/stage/bench
  build/tools/cortado bench conv --target opencl-nvidia --prepare .device/stage/ocl
  tar -C .device/stage -cf - . | xz -9 -T2 > .device/stage.tar.xz
  rm -rf .device/stage
  cat >> .device/run.sh <<'RUN'
python3 gpu_bench.py stage/bench conv ${OUT:-/tmp}/gpu-conv.json 20 || status=1
python3 gpu_bench.py stage/bench sgemm ${OUT:-/tmp}/gpu-sgemm.json 20 || status=1
exit $status
RUN
  du -sh .device
  exit 0
fi
# The conv suite once more with shared-memory staging forced where it applies (ungrouped
# layers): what it would change against the default register variant.
CORTADO_KNOBS=conv2d.variant=gpu_staged,conv2d.stage_channels=4 \
  build/tools/cortado bench conv --target cuda-h100 --prepare .device/stage/bench-staged $quick
build/tools/cortado bench sgemm --target cuda-h100 --prepare .device/stage/bench $quick
build/tools/cortado bench nets --target cuda-h100 --prepare .device/stage/bench $quick
# Issue 4's floors (AlexNet's five convolutions and Overfeat L6, batch 1) with each target's knob
# table, and on OpenCL also without it (the plain Halide target string has no table).
for floors in cuda:cuda-h100 opencl:opencl-nvidia opencl-untuned:${targets[opencl]}; do
  build/tools/cortado bench conv --target "${floors#*:}" --set models/bench/gpu-floors.csv \
    --prepare .device/stage/floors-${floors%%:*}
done
l6='"conv": [1, 1024, 15, 15, 1024, 3, 3, 1, 1, 1, 1, 15, 15, 1]'
# Variants run on top of each target description (its knob table and registers_per_thread).
variants="default: r96:registers=96 r64:registers=64 tc4:threads_c=4 tc8:threads_c=8
  k8:split_k=8 k32:split_k=32 rows5:rows=5 ch4:channels=4
  ch4_rows15:channels=4,rows=15 ch4_rows15_tc4:channels=4,rows=15,threads_c=4
  kc4:variant=gpu_staged,stage_channels=4 kc8:variant=gpu_staged,stage_channels=8"
echo "cortado: knob sweep for ${targets[cuda]} and ${targets[opencl]}"
for api in cuda opencl; do
  description=targets/${names[$api]}.target
  peak=$(sed -n 's/^peak_gflops = //p' "$description"); bandwidth=$(sed -n 's/^bandwidth_gbs = //p' "$description")
  entries=""
  for variant in $variants; do
    label=${variant%%:*}; knobs=$(echo "${variant#*:}" | sed 's/\([a-z_]*=\)/conv2d.\1/g')
    CORTADO_KNOBS="$knobs" device_library .device/stage/tune-$api/$label "${names[$api]}" .device/models/overfeat_l6.prototxt
    entries="$entries${entries:+,}{\"name\": \"L6 $api $label\", \"library\": \"$label/libnet.so\", \"gflop\": 4.247, \"megabytes\": 39.6, $l6}"
  done
  echo "{\"suite\": \"conv\", \"target\": \"${names[$api]}\", \"halide_target\": \"${targets[$api]}\", \"peak_gflops\": $peak, \"bandwidth_gbs\": $bandwidth, \"cases\": [$entries]}" \
    > .device/stage/tune-$api/conv.json
done
tar -C .device/stage -cf - . | xz -9 -T2 > .device/stage.tar.xz
rm -rf .device/stage

cat >> .device/run.sh <<'RUN'
for api in cuda opencl; do
  python3 gpu_bench.py stage/tune-$api conv ${OUT:-/tmp}/tune-$api.json 20 || status=1
done
for floors in cuda opencl opencl-untuned; do
  python3 gpu_bench.py stage/floors-$floors conv ${OUT:-/tmp}/floors-$floors.json 50 || status=1
done
python3 gpu_bench.py stage/bench conv ${OUT:-/tmp}/gpu-conv.json 20 || status=1
python3 gpu_bench.py stage/bench-staged conv ${OUT:-/tmp}/gpu-conv-staged.json 20 || status=1
python3 gpu_bench.py stage/bench sgemm ${OUT:-/tmp}/gpu-sgemm.json 20 || status=1
exit $status
RUN
du -sh .device
