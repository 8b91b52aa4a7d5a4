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
echo "== embed what the bundled vectors do not cover (nothing for the bundled snapshot; homebrew or changed entries)"
/usr/bin/time -f "index: %e s wall, %M KiB peak RSS" build/lorekeeper --db build/bench/store.db index --threads 2 --quiet
echo "== a large OrcBrew pack for the import benchmarks, and the time to import it (into a copy of the store)"
python3 scripts/make-large-orcbrew.py build/bench/large.orcbrew
cp build/bench/store.db build/bench/import.db
/usr/bin/time -f "import (large pack, lexical only): %e s wall, %M KiB peak RSS" \
  build/lorekeeper --db build/bench/import.db import --no-embed build/bench/large.orcbrew | tail -1
/usr/bin/time -f "import (large pack again, replacing it, embedding its 3,500 entities on 1 thread): %e s wall, %M KiB peak RSS" \
  build/lorekeeper --db build/bench/import.db import build/bench/large.orcbrew | tail -1
rm -f build/bench/import.db*
echo "== lorekeeper_bench (Google Benchmark)"
LOREKEEPER_BENCH_DB=build/bench/store.db LOREKEEPER_BENCH_ORCBREW=build/bench/large.orcbrew build/lorekeeper_bench --benchmark_min_time=0.5 "$@"
echo "== lorekeeper_stdio_bench (process spawn and stdio round trips)"
build/lorekeeper_stdio_bench build/lorekeeper build/bench/store.db 50 2000

echo "== the costliest legal tool calls: every string and array parameter at its bound (docs/LIMITS.md)"
python3 scripts/worst-calls.py build/lorekeeper build/bench/store.db --top 5

echo "== sync benchmarks: the whole recorded API (v1 + v2 list pages) from the bundled archive, a directory, loopback HTTP"
rm -rf build/bench/mirror build/bench/sync-*.db*
mkdir -p build/bench/mirror
tar --zstd -xf data/open5e-snapshot.tar.zst -C build/bench/mirror
/usr/bin/time -f "sync (bundled archive): %e s wall, %M KiB peak RSS" \
  build/lorekeeper --db build/bench/sync-bundled.db sync --quiet --source bundled
/usr/bin/time -f "sync (directory): %e s wall, %M KiB peak RSS" \
  build/lorekeeper --db build/bench/sync-dir.db sync --quiet --source build/bench/mirror
python3 tests/sync/replay_server.py build/bench/mirror > build/bench/replay.port &
replay_pid=$!
trap 'kill $replay_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do grep -q PORT build/bench/replay.port 2>/dev/null && break; sleep 0.1; done
port=$(awk '/PORT/ {print $2}' build/bench/replay.port)
/usr/bin/time -f "sync (loopback HTTP, Python replay server): %e s wall, %M KiB peak RSS" \
  build/lorekeeper --db build/bench/sync-http.db sync --quiet --source "http://127.0.0.1:$port"
