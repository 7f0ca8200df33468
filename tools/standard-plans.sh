#!/usr/bin/env bash
# Compiles the standard plans, the kernels the shipped tuning records apply to, with one build of
# cortado: the 7 benchmark networks at batch 1, 5 and 20 for the host and the two CPU
# descriptions with records (Zen 4 and Xeon VMs), and the 4 ImageNet networks at batch 20 for
# cuda-h100 and opencl-nvidia. Each target's kernels go to OUT/<target>/cache, each plan (`info
# --plan`) to OUT/<target>/<net>-b<batch>.plan. Two builds' outputs, compared by
# tools/kernel-identity.py, show whether a change moved any kernel before records are restamped:
#   tools/standard-plans.sh OLD/bin/cortado before && tools/standard-plans.sh build/tools/cortado after
#   for t in after/*/; do tools/kernel-identity.py before/$(basename $t)/cache $t/cache $t/*.plan; done
# Only exact records (--no-transfer): the ones `host` would take from another machine depend on
# the machine the script runs on.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 CORTADO OUT" >&2; exit 2; }
cortado=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
models=${CORTADO_MODELS:-$root/../shared/models}
[ -d "$models" ] || { echo "$0: no $models (the benchmark networks)" >&2; exit 1; }

compile() {  # target net batch
  local target=$1 net=$2 batch=$3 shape=()
  [ "$net" = nin_imagenet_train_val_v1 ] && shape=(--input-shape "$batch,3,224,224")
  local dir="$out/$target"
  mkdir -p "$dir/lib"
  CORTADO_CACHE="$dir/cache" "$cortado" compile "$models/$net.prototxt" --target "$target" --batch "$batch" \
    --no-transfer "${shape[@]}" -o "$dir/lib" >/dev/null
  CORTADO_CACHE="$dir/cache" "$cortado" info "$models/$net.prototxt" --plan --target "$target" --batch "$batch" \
    --no-transfer "${shape[@]}" >"$dir/$net-b$batch.plan"
}

for target in host epyc-2core-avx512-zen4 xeon-2core-avx512-spr; do
  for net in lenet cifar10_quick cifar10_full alexnet caffenet nin_imagenet_train_val_v1 googlenet; do
    for batch in 1 5 20; do compile "$target" "$net" "$batch"; done
  done
done
for target in cuda-h100 opencl-nvidia; do
  for net in alexnet caffenet nin_imagenet_train_val_v1 googlenet; do compile "$target" "$net" 20; done
done
echo "standard plans of $cortado in $out"
