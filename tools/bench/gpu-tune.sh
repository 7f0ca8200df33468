#!/usr/bin/env bash
# One round of tuning for the lent GPU (tools/tune_prepare.h). Here: compiles each set's next
# candidates (cortado tune ... --prepare) and packs the bundles, xz-compressed to fit the 64 MiB
# carry, with a run script into .device/tune/. On the GPU machine, through the device tool with
# carry [".device"]:
#     bash .device/tune/run.sh [BUNDLE ...]
# runs tools/bench/tune_runner.py on every bundle (or the ones named, e.g. set-0-bundle-3, to stay
# within one call's time) into $OUT/tune-records.jsonl (a bundle whose runner dies is resumed,
# the candidate that killed it recorded as rejected). Back here:
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
cmake --build build --target cortado cortado_caffe_pb2 >/dev/null
rm -rf .device/tune && mkdir -p .device/tune
cp build/python/caffe_pb2.py .device/tune/  # the runner's caffemodel writer (tools/bench/gpu_bench.py)
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
# OpenCL libraries find NVIDIA's driver through the ICD loader.
nvidia_opencl=/usr/local/nvidia/lib64/libnvidia-opencl.so.1
[ -e "$nvidia_opencl" ] && export OCL_ICD_FILENAMES=$nvidia_opencl
start=$(date +%s)
status=0
for name in "${names[@]}"; do
  bundle=$here/stage/$name
  finished=""
  for attempt in 1 2 3 4 5 6 7 8; do
    PYTHONPATH=$here python3 tools/bench/tune_runner.py "$bundle" "$out" && { finished=yes; break; }
  done
  [ -n "$finished" ] || { echo "runner: $name did not finish in 8 attempts" >&2; status=1; }
done
echo "runner: $(( $(date +%s) - start )) s for ${#names[@]} bundles"
exit $status
RUN
du -sh .device/tune
echo "next: bash .device/tune/run.sh on the GPU machine (carry .device), then cortado tune --import tune-records.jsonl --db $db"
