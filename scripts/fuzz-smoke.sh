#!/usr/bin/env bash
# Builds the libFuzzer targets with the Debian clang the set-up installs (ASan and UBSan included) and runs
# each for a short time from its committed corpus, deep-nesting inputs included. A finding fails the run and
# leaves the crashing input in build-fuzz/findings/. Seconds per target: FUZZ_SECONDS (default 20).
#   scripts/fuzz-smoke.sh    after scripts/test.sh (the MCP target searches its fixture store)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/test-setup.sh
seconds="${FUZZ_SECONDS:-20}"
store="$root/build/transcripts/store.db"
if [[ ! -f "$store" ]]; then
  echo "fuzz-smoke: $store is missing; run scripts/test.sh first" >&2
  exit 2
fi
# Line tables only: findings' stacks name functions, files and lines.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" -DLOREKEEPER_FUZZ=ON \
  -DLOREKEEPER_SANITIZE=ON -DLOREKEEPER_DEVELOPER_MODE=OFF >/dev/null
targets=(mcp_message wordpiece safetensors edn markup)
cmake --build build-fuzz -j2 --target "${targets[@]/%/_fuzzer}"
mkdir -p build-fuzz/findings
export LOREKEEPER_FUZZ_DB="$store" LOREKEEPER_EMBED=off
export LOREKEEPER_FUZZ_VOCAB="$root/tests/fixtures/model/vocab.txt"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
passed=0
failed=0
for t in "${targets[@]}"; do
  work="$(mktemp -d)"
  cp -r "fuzz/corpus/$t/." "$work/"
  # max_len 256 KiB: room for the 120 KB deep-nesting inputs of the MCP corpus, and for mutations that go deeper.
  if build-fuzz/"${t}_fuzzer" -max_total_time="$seconds" -max_len=262144 -timeout=20 -rss_limit_mb=2048 \
    -artifact_prefix="build-fuzz/findings/${t}-" -print_final_stats=1 "$work" >"build-fuzz/${t}.log" 2>&1; then
    echo "fuzz-smoke: $t: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/${t}.log" | grep -o '[0-9]*$') runs in ${seconds} s, no finding"
    passed=$((passed + 1))
  else
    echo "fuzz-smoke: $t FAILED; the log's end:" >&2
    tail -40 "build-fuzz/${t}.log" >&2
    failed=$((failed + 1))
  fi
  rm -rf "$work"
done
echo "fuzz-smoke: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
