#!/usr/bin/env bash
# Load test of `lorekeeper serve --http` with wrk on loopback (tools/call, scripts/load-http.lua), next to the
# same requests over stdio (scripts/load-stdio.py). Lexical search only (LOREKEEPER_EMBED=off), so no
# background embedder competes for the CPU. Prints one RESULT line per run; record them in docs/PERFORMANCE.md.
#
#   scripts/load-http.sh [BIN] [DB] [SECONDS]
#     BIN      default build/lorekeeper
#     DB       default /tmp/lkhttp/full.db (built from the bundled snapshot when missing)
#     SECONDS  per run, default 60
#   LOAD_CONNECTIONS="1 8 32" LOAD_SERVER_THREADS=8 LOAD_WRK_THREADS=2 override the defaults.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$root/build/lorekeeper}"
db="${2:-/tmp/lkhttp/full.db}"
seconds="${3:-60}"
connections="${LOAD_CONNECTIONS:-1 8 32}"
server_threads="${LOAD_SERVER_THREADS:-32}"
wrk_threads="${LOAD_WRK_THREADS:-2}"

command -v wrk >/dev/null || { echo "load-http: wrk is not installed (apt-get install wrk)" >&2; exit 1; }
[[ -x "$bin" ]] || { echo "load-http: $bin is not executable; build lorekeeper first" >&2; exit 1; }
if [[ ! -f "$db" ]]; then
  mkdir -p "$(dirname "$db")"
  "$bin" --db "$db" sync --source bundled --force --quiet
fi
export LOREKEEPER_EMBED=off LOREKEEPER_AUTO_SYNC=off LOREKEEPER_LOG_LEVEL=warning

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); store $db"
source "$root/scripts/serve-http.sh"
start_http_server "$bin" "$db" "$server_threads"
# Warm-up: the engines open their store connections and SQLite its page cache.
wrk -t1 -c"$server_threads" -d3s -s "$root/scripts/load-http.lua" "$url" >/dev/null

for c in $connections; do
  t=$((c < wrk_threads ? c : wrk_threads))
  printf 'http  connections=%-3s server_threads=%s: ' "$c" "$server_threads"
  wrk -t"$t" -c"$c" -d"${seconds}s" --latency -s "$root/scripts/load-http.lua" "$url" | grep '^RESULT'
done
kill -TERM "$server"
wait "$server" || { echo "load-http: the server did not stop cleanly: $(cat "$log")" >&2; exit 1; }
trap - EXIT
rm -f "$log"

for w in 1 8; do
  printf 'stdio window=%-3s                  : ' "$w"
  python3 "$root/scripts/load-stdio.py" "$bin" "$db" "$seconds" "$w"
done
