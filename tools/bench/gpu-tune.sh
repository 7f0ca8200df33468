#!/usr/bin/env bash
# One round of tuning for the lent GPU (compiler/tuner/bundles.h). Here: compiles each set's next
# candidates (cortado tune ... --prepare) and packs the bundles, xz-compressed to fit the 64 MiB
# carry, with tune_bundle_runner (no libHalide) and a run script into .device/tune/. On the GPU
# machine, through the device tool with carry [".device"]:
#     bash .device/tune/run.sh [BUNDLE ...]
# measures every bundle (or the ones named, e.g. set-0-bundle-3, to stay within one call's time)
# on every GPU of the host at once, into $OUT/tune-records.jsonl (a stopped bundle is resumed).
# Back here:
#     cortado tune --import tune-records.jsonl --db DB
# and the next round continues from those records.
#     tools/bench/gpu-tune.sh DB TARGET CANDIDATES "TUNE ARGS" ["TUNE ARGS" ...]
# e.g. tools/bench/gpu-tune.sh h100.jsonl cuda-h100 8 "../shared/models/alexnet.prototxt --batch 20" \
#          "--suite conv --set models/bench/gpu-floors.csv"
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: tools/bench/gpu-tune.sh DB TARGET CANDIDATES \"TUNE ARGS\" [...]" >&2; exit 2; }
db=$1 target=$2 candidates=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="$root/.venv/bin:$PATH"
cmake --build build --target cortado tune_bundle_runner >/dev/null
rm -rf .device/tune && mkdir -p .device/tune/bin .device/tune/lib
cp build/tools/tune_bundle_runner .device/tune/bin/
# What the runner and the OpenCL libraries load that the GPU machine may lack.
cp "$(ldconfig -p | awk '/libprotobuf.so.32 /{print $NF; exit}')" .device/tune/lib/
cp "$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')" .device/tune/lib/libOpenCL.so.1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
set_number=0
for args in "$@"; do
  # shellcheck disable=SC2086  # each set is a list of options
  build/tools/cortado tune $args --target "$target" --prepare "$scratch/set-$set_number" \
    --max-candidates "$candidates" --db "$db"
  set_number=$((set_number + 1))
done
for manifest in "$scratch"/set-*/bundle-*/tune.json; do  # bundles with candidates
  [ -e "$manifest" ] || continue
  bundle=$(dirname "$manifest")
  name=$(basename "$(dirname "$bundle")")-$(basename "$bundle")
  tar -C "$(dirname "$bundle")" -cf - "$(basename "$bundle")" --transform "s|^bundle-[0-9]*|$name|" | xz -6 -T2 > ".device/tune/$name.tar.xz"
done
cat > .device/tune/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs the bundles named (default: all) of this round on this GPU; records go to
# ${OUT:-/tmp}/tune-records.jsonl.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/stage"
names=("$@")
[ ${#names[@]} -gt 0 ] || for t in "$here"/*.tar.xz; do names+=("$(basename "$t" .tar.xz)"); done
for name in "${names[@]}"; do xz -dc "$here/$name.tar.xz" | tar -C "$here/stage" -xf -; done
out=${OUT:-/tmp}/tune-records.jsonl
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# OpenCL libraries find NVIDIA's driver through the ICD loader.
nvidia_opencl=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
[ -e "$nvidia_opencl" ] && export OCL_ICD_FILENAMES=$nvidia_opencl
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${gpus:-0}" -ge 1 ] || gpus=1
start=$(date +%s)
status=0
for name in "${names[@]}"; do
  bundle=$here/stage/$name
  finished=""
  # 130: a candidate was killed from outside and is not on record yet; a rerun measures it.
  for attempt in 1 2 3; do
    "$here/bin/tune_bundle_runner" "$bundle" "$out" --devices "$gpus" && { finished=yes; break; }
  done
  [ -n "$finished" ] || { echo "runner: $name did not finish in 3 attempts" >&2; status=1; }
done
echo "runner: $(( $(date +%s) - start )) s for ${#names[@]} bundles on $gpus GPUs"
exit $status
RUN
du -sh .device/tune
echo "next: bash .device/tune/run.sh on the GPU machine (carry .device), then cortado tune --import tune-records.jsonl --db $db"
