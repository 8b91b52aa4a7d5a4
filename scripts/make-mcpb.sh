#!/usr/bin/env bash
# Builds the MCP Bundle (.mcpb) for hosts that install one file: the stripped binary and the licences beside the
# manifest CMake writes from packaging/mcpb/manifest.json.in (one version number: the project's), validated and
# packed by the official mcpb CLI (tests/e2e/node_modules, installed by scripts/test-setup.sh); and server.json, the
# bundle's entry for the MCP registry (packaging/registry/server.json.in), beside it.
# Usage: scripts/make-mcpb.sh [BUILD_DIR] [OUTPUT.mcpb]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
mcpb="$root/tests/e2e/node_modules/.bin/mcpb"
[[ -x "$mcpb" ]] || { echo "make-mcpb: $mcpb is missing: run scripts/test-setup.sh (or npm ci --prefix tests/e2e)" >&2; exit 1; }
[[ -f "$build/mcpb/manifest.json" ]] || { echo "make-mcpb: $build/mcpb/manifest.json is missing: configure $build with CMake" >&2; exit 1; }
version="$(sed -n 's/^ *"version": "\([^"]*\)".*/\1/p' "$build/mcpb/manifest.json")"
out="${2:-$build/lorekeeper-$version-linux-$(uname -m).mcpb}"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cmake --install "$build" --prefix "$stage/prefix" --strip >/dev/null
mkdir -p "$stage/bundle/server"
cp "$build/mcpb/manifest.json" "$stage/bundle/manifest.json"
cp "$stage/prefix/bin/lorekeeper" "$stage/bundle/server/lorekeeper"
cp "$root/LICENSE" "$stage/bundle/LICENSE"
cp "$root/data/README.md" "$stage/bundle/CONTENT-LICENSES.md"
export NODE_NO_WARNINGS=1
"$mcpb" validate "$stage/bundle/manifest.json"
"$mcpb" pack "$stage/bundle" "$out" >/dev/null
# The MCP registry entry beside the bundle: the release asset's URL (by architecture) and the bundle's SHA-256.
sha="$(sha256sum "$out" | cut -d' ' -f1)"
sed -e "s/__ARCH__/$(uname -m)/" -e "s/__MCPB_SHA256__/$sha/" "$build/mcpb/server.json.in" > "$(dirname "$out")/server.json"
echo "$out"
