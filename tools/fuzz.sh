#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/, seeds each corpus
# from ../shared/models and from files cortado itself writes, then fuzzes every target for
# SECONDS (default 600) at once. Crashers land in build-fuzz/artifacts/; minimise one with
# `build-fuzz/tests/fuzz/fuzz_X -minimize_crash=1 FILE` and commit it under
# tests/fuzz/regressions/X/ so fuzz_regression_test replays it forever.
set -euo pipefail
seconds=${1:-600}
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/bootstrap.sh" --all
cd "$root"
export PATH="$root/.venv/bin:$PATH"
halide_dir=$(.venv/bin/python -c "import halide; print(halide.install_dir())")
# Halide's directories named outright: searched from the venv's prefix, CMake first finds the
# wheel's share/cmake/Halide, which points at the site-packages of the Python the venv came from.
cmake -S . -B build-fuzz -G Ninja -DCORTADO_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-15 -DCMAKE_CXX_COMPILER=clang++-15 -DCMAKE_PREFIX_PATH="$halide_dir" \
  -DHalide_DIR="$halide_dir/lib64/cmake/Halide" -DHalideHelpers_DIR="$halide_dir/lib64/cmake/HalideHelpers" \
  -DCORTADO_HALIDE_INCLUDE_DIR="$halide_dir/include" >/dev/null
cmake --build build-fuzz

corpus=build-fuzz/corpus
mkdir -p "$corpus"/{prototxt,onnx,caffemodel,npy,qparams} build-fuzz/artifacts
shared="$root/../shared/models"
if [ -d "$shared" ]; then cp "$shared"/*.prototxt "$corpus/prototxt/"; fi
cp models/*.prototxt "$corpus/prototxt/"
# The non-finite cases: one layer or op each, the newer ones among them.
cp tests/non_finite/*.prototxt "$corpus/prototxt/"
cp tests/non_finite/*.onnx "$corpus/onnx/"
for net in lenet cifar10_quick; do
  [ -f "$shared/$net.prototxt" ] || continue
  build/tools/cortado run "$shared/$net.prototxt" --batch 1 --save-weights "$corpus/caffemodel/$net.caffemodel" \
    --output "$corpus/npy/$net-out.npy" --dump-dir build-fuzz/dump-$net >/dev/null
  find build-fuzz/dump-$net -name '*.npy' -size -64k -exec cp {} "$corpus/npy/" \;
done

# .qparams seeds: the hand-made hostile cases (the fuzzer's network names its layers a, b, c, d).
cp tests/fuzz/regressions/qparams/* "$corpus/qparams/"

# ONNX seeds: the test models (tools/bootstrap.sh puts onnx and onnxruntime in .venv).
.venv/bin/python tests/onnx/make_models.py build-fuzz/onnx-models >/dev/null
cp build-fuzz/onnx-models/*.onnx "$corpus/onnx/"

# The memory limit leaves room for the largest tensor the ONNX importer folds by design (1 GiB of
# floats, frontend/onnx_constants.h kMaxFoldedElements) and a copy of it as a layer's weights: a
# few KiB of ConstantOfShape can legitimately ask for that much.
pids=()
for target in prototxt onnx caffemodel npy qparams; do
  build-fuzz/tests/fuzz/fuzz_$target "$corpus/$target" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=3072 -artifact_prefix=build-fuzz/artifacts/$target- -print_final_stats=1 \
    > build-fuzz/fuzz_$target.log 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for target in prototxt onnx caffemodel npy qparams; do
  echo "== $target"; grep -E "^stat::|cov:|Done|ERROR|SUMMARY" build-fuzz/fuzz_$target.log | tail -8
done
exit $status
