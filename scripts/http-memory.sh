#!/usr/bin/env bash
# Resident memory of `serve --http` before, right after and 13 s after a burst of load (wrk, tools/call from
# scripts/load-http.lua): what a burst takes and what is given back once the idle engines are closed
# (docs/PERFORMANCE.md). Lexical search only.
#
#   scripts/http-memory.sh BIN DB [THREADS] [CONNECTIONS] [SECONDS]     (defaults: 64 workers, 64 connections, 10 s)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$1"
db="$2"
threads="${3:-64}"
connections="${4:-64}"
seconds="${5:-10}"
export LOREKEEPER_EMBED=off LOREKEEPER_AUTO_SYNC=off LOREKEEPER_LOG_LEVEL=warning
export LOREKEEPER_HTTP_MAX_CONNECTIONS_PER_CLIENT=$((connections + 16))
source "$root/scripts/serve-http.sh"
start_http_server "$bin" "$db" "$threads"
rss() { awk '/VmRSS/ {printf "%.0f MB", $2 / 1024}' "/proc/$server/status"; }
echo "$threads workers, $connections connections for $seconds s"
echo "  at start: $(rss)"
wrk -t2 -c"$connections" -d"${seconds}s" --timeout 20s -s "$root/scripts/load-http.lua" "$url" | grep '^RESULT'
echo "  right after the load: $(rss)"
sleep 13
echo "  13 s later: $(rss)"
