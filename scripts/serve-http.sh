# Sourced by the HTTP load scripts: start_http_server BIN DB THREADS starts `BIN --db DB serve --http` on a free
# loopback port with THREADS workers, sets `server` (its pid), `url` (its MCP endpoint) and `log` (its stderr),
# and stops it on exit.
start_http_server() {
  log="$(mktemp)"
  "$1" --db "$2" serve --http --port 0 --http-threads "$3" 2>"$log" &
  server=$!
  trap 'kill -TERM "$server" 2>/dev/null || true; rm -f "$log"' EXIT
  url=""
  for _ in $(seq 100); do
    url="$(grep -o 'listening on http://[^ ]*' "$log" | head -1 | cut -d' ' -f3 || true)"
    [[ -n "$url" ]] && break
    sleep 0.1
  done
  [[ -n "$url" ]] || { echo "$(basename "$0"): the server did not start: $(cat "$log")" >&2; exit 1; }
}
