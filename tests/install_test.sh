#!/usr/bin/env bash
# Installs this build into a temporary prefix, checks that no installed file names the source or
# build tree, then configures, builds and runs examples/ against the installed package from a copy
# outside the source tree (the example and the AlexNet prototxt it compiles), with CORTADO_HOME
# unset, so the installed cortado finds everything above its own folder.
#   install_test.sh BUILD_DIR SOURCE_DIR CMAKE GENERATOR MAKE_PROGRAM
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: install_test.sh BUILD_DIR SOURCE_DIR CMAKE GENERATOR MAKE_PROGRAM" >&2; exit 2; }
build=$(realpath "$1") source=$(realpath "$2") cmake=$3 generator=$4 make_program=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset CORTADO_HOME CORTADO_CACHE

"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log"
for needed in bin/cortado lib/libcortado_runtime.a lib/libHalide.so lib/cmake/cortado/cortadoConfig.cmake \
              share/cortado/targets/host-generic.target share/cortado/runtime/network_runtime.h \
              share/cortado/halide-include/HalideRuntime.h; do
    [ -e "$work/prefix/$needed" ] || { echo "install_test: $needed was not installed" >&2; exit 1; }
done
if grep -rlF -e "$source" -e "$build" "$work/prefix"; then
    echo "install_test: the installed files above name $source or $build" >&2
    exit 1
fi
if readelf -d "$work/prefix/bin/cortado" | grep -E 'R(UN)?PATH' | grep -vF '$ORIGIN/../lib'; then
    echo "install_test: the installed cortado has a search path other than \$ORIGIN/../lib" >&2
    exit 1
fi

mkdir -p "$work/app/models"
cp -r "$source/examples" "$work/app/examples"
cp "$source/models/alexnet.prototxt" "$work/app/models/"
"$cmake" -S "$work/app/examples" -B "$work/app/build" -G "$generator" -DCMAKE_MAKE_PROGRAM="$make_program" \
    -Dcortado_DIR="$work/prefix/lib/cmake/cortado" > "$work/configure.log" ||
    { cat "$work/configure.log" >&2; exit 1; }
grep -q "CORTADO_EXECUTABLE:FILEPATH=$work/prefix/bin/cortado" "$work/app/build/CMakeCache.txt" ||
    { echo "install_test: the example did not take the installed cortado" >&2; exit 1; }
"$cmake" --build "$work/app/build"
"$work/app/build/alexnet_classify" | tee "$work/run.log"
grep -q "top-5:  #[0-9]" "$work/run.log"
echo "install_test: installed into a temporary prefix; the example built and ran against it"
