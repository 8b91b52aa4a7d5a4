#!/usr/bin/env bash
# Installs what testing needs beyond what scripts/setup.sh installs for running: GoogleTest and Google Benchmark,
# the formatting check, the fuzzers' clang, the packaging tools, wrk, and the real MCP clients the end-to-end tests
# drive (pinned npm trees, the Python SDK). Idempotent and quick when everything is there: scripts/test.sh,
# scripts/test-sanitized.sh and scripts/fuzz-smoke.sh call it first. Uses `sudo` when not run as root.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
sudo=""
if [[ "$(id -u)" -ne 0 ]]; then sudo="sudo"; fi

# GoogleTest and Google Benchmark: unit tests and micro-benchmarks. jq, zstd, python3-venv: the e2e assertions, the
# full-mirror test, the Python SDK's environment. clang-format: the formatting check. clang and its libFuzzer
# runtime: scripts/fuzz-smoke.sh. wrk: scripts/load-http.sh and the replicas test. haproxy: the replicas test
# (docs/DEPLOY.md). dpkg-dev, file: the Debian package test.
packages=(libgtest-dev libgmock-dev libbenchmark-dev jq zstd python3-venv clang-format wrk haproxy clang
  libclang-rt-14-dev dpkg-dev file)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "==> Installing the test tools (Debian): ${missing[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# An npm tree is installed again only when its lock file changed since the last install.
npm_tree() {
  local dir="$1" what="$2"
  if [[ ! -f "$dir/node_modules/.package-lock.json" || "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]]; then
    echo "==> Installing $what (pinned in $dir/package-lock.json)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}
npm_tree tests/e2e "the MCP clients of the end-to-end tests and the mcpb CLI"
npm_tree tests/conformance "the MCP conformance suite and the Node 22 it needs"

if ! tests/e2e/.venv/bin/python -c 'import mcp, jsonschema' >/dev/null 2>&1; then
  echo "==> Installing the Python MCP SDK (PyPI mcp 2.3.0) into tests/e2e/.venv for the HTTP end-to-end test"
  if [[ ! -x tests/e2e/.venv/bin/python ]]; then python3 -m venv tests/e2e/.venv; fi
  tests/e2e/.venv/bin/pip install --disable-pip-version-check --quiet 'mcp==2.3.0'
fi
