#!/usr/bin/env bash
# The test suite: set up (first time only), build, run every test. Real-network tests read
# ../shared/models beside the checkout and skip with a message when it is absent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/bootstrap.sh"
cd "$root/build"
ctest --output-on-failure -j2 "$@"
