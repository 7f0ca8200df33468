#!/usr/bin/env bash
# The full CPU benchmark runs recorded in docs/PERFORMANCE.md: the conv, sgemm and nets suites of
# `cortado bench` against oneDNN and OpenBLAS on this machine, with JSON, markdown and plots in
# OUT_DIR (default out/bench-cpu). Run on an otherwise idle machine: the peers and cortado share
# its cores. Usage: tools/bench/cpu-bench.sh [OUT_DIR] [TARGET]   (TARGET default epyc-2core-avx2)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/out/bench-cpu}
target=${2:-epyc-2core-avx2}
"$root/tools/bootstrap.sh" --all
mkdir -p "$out"
cortado="$root/build/tools/cortado"
status=0
for suite in conv sgemm nets; do
  iterations=5; [ $suite = sgemm ] && iterations=3
  rm -f "$out/$suite.json" "$out/$suite.md"
  if "$cortado" bench $suite --target "$target" --iterations $iterations \
       --json "$out/$suite.json" --markdown "$out/$suite.md" > /dev/null; then
    "$root/.venv/bin/python" "$root/tools/bench_plots.py" "$out/$suite.json" "$out/cpu-$suite" || status=1
    tail -3 "$out/$suite.md"
  else
    echo "cpu-bench: the $suite suite failed" >&2
    status=1
  fi
done
exit $status
