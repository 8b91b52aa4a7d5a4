#!/usr/bin/env bash
# Runs the whole test suite: unit, transcript (golden) and end-to-end tests, after an incremental build.
# Expects scripts/setup.sh to have been run once on the machine; brings the test tools itself (scripts/test-setup.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/test-setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOREKEEPER_DEVELOPER_MODE=ON >/dev/null
cmake --build build -j2
scripts/check-format.sh
cd build
ctest --output-on-failure -j2 "$@"
