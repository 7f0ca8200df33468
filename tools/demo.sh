#!/usr/bin/env bash
# The main job: set up (first time only), compile AlexNet for this machine into out/alexnet/
# (alexnet.h + libalexnet.a), then run it: per-layer times, top-5, and a check against the
# double-precision reference. Extra arguments go to that `cortado run` (e.g. --weights
# W.caffemodel). Then the trained digits network classifies its held-out images and prints its
# accuracy next to the trainer's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Each step's time, for the first run's budget (docs/PERFORMANCE.md, First run).
step_start=$SECONDS
step_done() { echo "cortado: $1 took $((SECONDS - step_start)) s"; step_start=$SECONDS; }
"$root/tools/bootstrap.sh"
step_done "set-up and build"
cd "$root"
build/tools/cortado compile models/alexnet.prototxt --target host --batch 1 -o out/alexnet
step_done "compile"
build/tools/cortado run models/alexnet.prototxt --target host --batch 1 --iterations 10 --check "$@"
step_done "run and check"
# A trained network: the digits classifier (models/digits) on its held-out images, its accuracy
# against the trainer's.
build/tools/cortado run models/digits/lenet.prototxt --weights models/digits/lenet.caffemodel --target host \
  --batch 397 --input models/digits/heldout_images.npy --output out/digits_scores.npy --iterations 10 --check |
  grep -E "^(time per run|reference check)"
.venv/bin/python tools/digits_accuracy.py out/digits_scores.npy
step_done "the digits network"
