#!/usr/bin/env bash
# Installs everything cortado needs on a fresh Debian machine, then configures and builds it.
# Idempotent: a second run only rebuilds what changed. Used by README's two commands and .ci/run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

debian_packages=(libprotobuf-dev:amd64 protobuf-compiler libgtest-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
                 libdnnl-dev libopenblas-dev clang-15 nlohmann-json3-dev libonnx-dev
                 g++-aarch64-linux-gnu qemu-user libprotobuf-dev:arm64 python3-torch python3-torchvision python3-protobuf)
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
# The ARM64 checker links Debian's arm64 libprotobuf (multiarch) and runs under qemu-aarch64.
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo_cmd dpkg --add-architecture arm64
fi
missing=()
for p in "${debian_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "cortado: installing Debian packages: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "cortado: creating .venv"
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import halide, cmake, ninja, matplotlib, onnx, onnxruntime" 2>/dev/null; then
  echo "cortado: installing halide==21.0.0, cmake, ninja, matplotlib (bench plots), onnx and onnxruntime (the ONNX tests' models and peer) into .venv"
  .venv/bin/pip install -q --disable-pip-version-check halide==21.0.0 "cmake>=3.28" ninja matplotlib onnx onnxruntime
fi

export PATH="$root/.venv/bin:$PATH"
halide_dir=$(.venv/bin/python -c "import halide; print(halide.install_dir())")
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$halide_dir" \
    -DCORTADO_WARNINGS_AS_ERRORS=ON
fi
cmake --build build
