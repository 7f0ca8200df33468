#!/usr/bin/env bash
# Installs what cortado needs on a fresh Debian machine, then configures and builds it.
#   bootstrap.sh          what compiling and running a network needs: protobuf, the ONNX schema,
#                         nlohmann-json; Halide 21, CMake and Ninja in .venv; builds the CLI and the
#                         runtime only (README's main command)
#   bootstrap.sh --all    everything: the test suite's packages (GoogleTest, PoCL, the ARM64 cross
#                         toolchain and qemu, the benchmark peers, PyTorch for the exported
#                         networks, onnx and onnxruntime) and every target (README's test command)
# Idempotent: a second run only installs what is missing and rebuilds what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
all=false
[ "${1:-}" = "--all" ] && all=true

debian_packages=(libprotobuf-dev:amd64 protobuf-compiler nlohmann-json3-dev libonnx-dev)
python_packages=(halide==21.0.0 "cmake>=3.28" ninja numpy)
python_modules="halide, cmake, ninja, numpy"
if $all; then
  debian_packages+=(libgtest-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libdnnl-dev libopenblas-dev
                    clang-15 g++-aarch64-linux-gnu qemu-user libprotobuf-dev:arm64 python3-torch
                    python3-torchvision python3-protobuf)
  python_packages+=(matplotlib onnx onnxruntime)
  python_modules+=", matplotlib, onnx, onnxruntime"
fi
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
# The ARM64 checker links Debian's arm64 libprotobuf (multiarch) and runs under qemu-aarch64.
if $all && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo_cmd dpkg --add-architecture arm64
  $sudo_cmd apt-get update -qq
fi
missing=()
for p in "${debian_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "cortado: installing Debian packages: ${missing[*]}"
  # A fresh machine's package lists may be missing or stale: update once, only when installing.
  $sudo_cmd apt-get update -qq
  # The main command's packages need none of their recommendations; the suite's keep them.
  recommends=--no-install-recommends
  $all && recommends=""
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq $recommends "${missing[@]}" >/dev/null
  echo "cortado: Debian packages installed in $SECONDS s"
fi

if [ ! -x .venv/bin/python ]; then
  echo "cortado: creating .venv"
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import $python_modules" 2>/dev/null; then
  echo "cortado: installing ${python_packages[*]} into .venv"
  started=$SECONDS
  .venv/bin/pip install -q --disable-pip-version-check "${python_packages[@]}"
  echo "cortado: Python packages installed in $((SECONDS - started)) s"
fi

export PATH="$root/.venv/bin:$PATH"
halide_dir=$(.venv/bin/python -c "import halide; print(halide.install_dir())")
# The main command configures without the tests; the test command turns them on (and keeps them).
tests_on() { grep -q '^CORTADO_TESTS:BOOL=ON' build/CMakeCache.txt 2>/dev/null; }
if [ ! -f build/build.ninja ] || { $all && ! tests_on; }; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$halide_dir" \
    -DCORTADO_WARNINGS_AS_ERRORS=ON -DCORTADO_TESTS=$($all && echo ON || echo OFF) >/dev/null
fi
if $all; then
  cmake --build build
else
  cmake --build build --target cortado
fi
