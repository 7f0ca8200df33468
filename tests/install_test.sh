#!/usr/bin/env bash
# Installs this build into a temporary prefix, checks that no installed file names the source or
# build tree, then configures, builds and runs examples/ against the installed package from a copy
# outside the source tree (the example and the AlexNet prototxt it compiles), with CORTADO_HOME
# unset, so the installed cortado finds everything above its own folder. Where user namespaces
# allow it, that last part runs with the source and build trees hidden under empty tmpfs mounts
# (only the source tree's .venv, which holds cmake and ninja, is mounted back), so a path into
# them that the greps above missed fails the build instead of being quietly used.
#   install_test.sh BUILD_DIR SOURCE_DIR CMAKE GENERATOR MAKE_PROGRAM
#   (it calls itself as `install_test.sh --hidden WORK_DIR ...` inside the namespace)
set -euo pipefail
hidden=""
if [ "${1:-}" = --hidden ]; then hidden=$2; shift 2; fi
[ $# -eq 5 ] || { echo "usage: install_test.sh BUILD_DIR SOURCE_DIR CMAKE GENERATOR MAKE_PROGRAM" >&2; exit 2; }
build=$(realpath "$1") source=$(realpath "$2") cmake=$3 generator=$4 make_program=$5
unset CORTADO_HOME CORTADO_CACHE

build_example() {
    "$cmake" -S "$work/app/examples" -B "$work/app/build" -G "$generator" -DCMAKE_MAKE_PROGRAM="$make_program" \
        -Dcortado_DIR="$work/prefix/lib/cmake/cortado" > "$work/configure.log" ||
        { cat "$work/configure.log" >&2; exit 1; }
    grep -q "CORTADO_EXECUTABLE:FILEPATH=$work/prefix/bin/cortado" "$work/app/build/CMakeCache.txt" ||
        { echo "install_test: the example did not take the installed cortado" >&2; exit 1; }
    "$cmake" --build "$work/app/build"
    "$work/app/build/alexnet_classify" | tee "$work/run.log"
    grep -q "top-5:  #[0-9]" "$work/run.log"
}

if [ -n "$hidden" ]; then
    # In a private mount namespace: keep the .venv, hide the trees, put the .venv back.
    work=$hidden venv="$source/.venv"
    if [ -d "$venv" ]; then mkdir -p "$work/venv" && mount --bind "$venv" "$work/venv"; fi
    mount -t tmpfs cortado-hidden "$source"
    case "$build/" in "$source"/*) ;; *) mount -t tmpfs cortado-hidden "$build" ;; esac
    if [ -d "$work/venv" ]; then mkdir -p "$venv" && mount --bind "$work/venv" "$venv"; fi
    if [ -e "$source/CMakeLists.txt" ] || [ -e "$build/CMakeCache.txt" ]; then
        echo "install_test: could not hide the source and build trees" >&2
        exit 1
    fi
    build_example
    echo "install_test: the example built and ran with $source and $build hidden"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log"
for needed in bin/cortado lib/libcortado_runtime.a lib/libHalide.so lib/cmake/cortado/cortadoConfig.cmake \
              share/cortado/targets/host-generic.target share/cortado/runtime/network_runtime.h \
              share/cortado/halide-include/HalideRuntime.h; do
    [ -e "$work/prefix/$needed" ] || { echo "install_test: $needed was not installed" >&2; exit 1; }
done
if [ -e "$build/lib/libcortado_bench_peers.so" ] && [ ! -e "$work/prefix/lib/libcortado_bench_peers.so" ]; then
    echo "install_test: lib/libcortado_bench_peers.so was built but not installed" >&2
    exit 1
fi
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

# Namespaces that cannot mount (some container and AppArmor policies) fall back too, as does a
# temporary folder inside the trees that would be hidden.
case "$work/" in "$source"/* | "$build"/*) can_hide="" ;; *) can_hide=yes ;; esac
if [ -n "$can_hide" ] &&
   unshare --user --map-root-user --mount sh -c 'mount -t tmpfs probe "$1"' sh "$work" 2> /dev/null; then
    unshare --user --map-root-user --mount \
        bash "$0" --hidden "$work" "$build" "$source" "$cmake" "$generator" "$make_program"
else
    echo "install_test: cannot hide the trees here (no user namespace that may mount), so the source tree stays in reach while the example builds"
    build_example
fi
echo "install_test: installed into a temporary prefix; the example built and ran against it"
