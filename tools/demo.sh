#!/usr/bin/env bash
# The main job: set up (first time only), compile AlexNet for this machine into out/alexnet/
# (alexnet.h + libalexnet.a), then run it: per-layer times, top-5, and a check against the
# double-precision reference. Extra arguments go to `cortado run` (e.g. --weights W.caffemodel).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/bootstrap.sh"
cd "$root"
build/tools/cortado compile models/alexnet.prototxt --target host --batch 1 -o out/alexnet
build/tools/cortado run models/alexnet.prototxt --target host --batch 1 --iterations 10 --check "$@"
