#!/usr/bin/env bash
# Prepares the GPU run: compiles AlexNet, GoogLeNet, the op cases and the benchmark convolutions
# here for CUDA and for OpenCL (Halide emits PTX/OpenCL C without a GPU), and gathers what the
# lent GPU machine needs into .device/ (ignored by git): the libraries, the prototxts, the
# libHalide-free checker and its libraries, an OpenCL ICD file for NVIDIA's driver, and
# .device/run.sh. Then run, through the device tool, with carry [".device"]:
#     bash .device/run.sh
# It checks every blob of every network against the reference on CUDA and on NVIDIA OpenCL, and
# times the convolutions against cuDNN in the same process (tools/gpu_conv_bench.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/bootstrap.sh"
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target prebuilt_network_check cortado
shared="$root/../shared/models"
[ -d "$shared" ] || { echo "gpu-check: needs ../shared/models beside the checkout" >&2; exit 1; }

rm -rf .device && mkdir -p .device/bin .device/lib .device/models
cp build/tests/prebuilt_network_check .device/bin/
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/lib/
opencl_loader=$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')
cp "$opencl_loader" .device/lib/libOpenCL.so.1
cp "$opencl_loader" .device/lib/libOpenCL.so
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > .device/nvidia.icd
cp "$shared"/{alexnet,googlenet}.prototxt models/bench/overfeat_l6.prototxt .device/models/
cp tools/gpu_conv_bench.py .device/

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

declare -A targets=([cuda]=$(sed -n 's/^halide_target = //p' targets/cuda-h100.target) [opencl]=$(sed -n 's/^halide_target = //p' targets/opencl-nvidia.target))
cases="alexnet:1 googlenet:1 alexnet:5 ops_mix:0 overfeat_l6:1"
{
  echo 'set -u; cd "$(dirname "$0")"; export LD_LIBRARY_PATH=$PWD/lib:${LD_LIBRARY_PATH:-}'
  echo 'export OCL_ICD_VENDORS=$PWD/nvidia.icd OCL_ICD_FILENAMES=/usr/local/nvidia/lib64/libnvidia-opencl.so.1'
  echo 'nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; status=0'
} > .device/run.sh
for api in cuda opencl; do
  for case in $cases; do
    net=${case%%:*}; batch=${case##*:}; dir=.device/$api/$net-b$batch
    batch_option=""; [ "$batch" != 0 ] && batch_option="--batch $batch"
    build/tools/cortado compile .device/models/$net.prototxt --target "${targets[$api]}" $batch_option \
      --name net --shared -o "$dir" >/dev/null
    rm -f "$dir"/*.a "$dir"/*_glue.cc
    echo "bin/prebuilt_network_check models/$net.prototxt ${dir#.device/}/libnet.so ${targets[$api]} $batch_option --iterations 20 || status=1" >> .device/run.sh
  done
done
cat >> .device/run.sh <<'RUN'
python3 gpu_conv_bench.py ${OUT:-/tmp}/gpu_conv_bench.json '[
 ["cuda/overfeat_l6-b1/libnet.so", "conv", 1, 1024, 15, 15, 1024, 3, 1, 1, 1, 15, 15],
 ["cuda/alexnet-b1/libnet.so", "conv1+relu1", 1, 3, 227, 227, 96, 11, 4, 0, 1, 55, 55],
 ["cuda/alexnet-b1/libnet.so", "conv2+relu2", 1, 96, 27, 27, 256, 5, 1, 2, 2, 27, 27],
 ["cuda/alexnet-b1/libnet.so", "conv3+relu3", 1, 256, 13, 13, 384, 3, 1, 1, 1, 13, 13],
 ["cuda/alexnet-b1/libnet.so", "conv4+relu4", 1, 384, 13, 13, 384, 3, 1, 1, 2, 13, 13],
 ["cuda/alexnet-b1/libnet.so", "conv5+relu5", 1, 384, 13, 13, 256, 3, 1, 1, 2, 13, 13]]' || status=1
exit $status
RUN
du -sh .device
