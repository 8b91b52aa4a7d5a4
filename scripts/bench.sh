#!/usr/bin/env bash
# Runs the benchmarks against a store built from the bundled Open5e snapshot (9,873 entities).
# Results go to stdout; docs/PERFORMANCE.md records them with this command.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 --target lorekeeper lorekeeper_bench lorekeeper_stdio_bench
mkdir -p build/bench
if [[ ! -f build/bench/store.db ]]; then
  echo "== sync from the bundled snapshot (time, peak RSS)"
  /usr/bin/time -f "sync (bundled): %e s wall, %M KiB peak RSS" build/lorekeeper --db build/bench/store.db sync \
    --quiet --source bundled
fi
echo "== lorekeeper_bench (Google Benchmark)"
LOREKEEPER_BENCH_DB=build/bench/store.db build/lorekeeper_bench --benchmark_min_time=0.5 "$@"
echo "== lorekeeper_stdio_bench (process spawn and stdio round trips)"
build/lorekeeper_stdio_bench build/lorekeeper build/bench/store.db 50 2000
