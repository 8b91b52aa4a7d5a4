#!/usr/bin/env bash
# Builds with AddressSanitizer and UBSan and runs the unit (the HTTP transport's in-process tests included),
# transcript and fuzz-replay tests under them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/test-setup.sh
# Line tables only (-g1): enough for the sanitizers' reports (functions, files, lines), and a lighter build than full
# debug information.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DLOREKEEPER_SANITIZE=ON >/dev/null
cmake --build build-asan -j2 --target lorekeeper lorekeeper_unit_tests fidelity_test edn_test orcbrew_test \
  http_transport_test mcp_message_fuzz_replay wordpiece_fuzz_replay safetensors_fuzz_replay edn_fuzz_replay \
  markup_fuzz_replay
cd build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j2 -L 'unit|golden|fuzz-replay' "$@"
