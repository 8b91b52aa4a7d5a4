#!/usr/bin/env bash
# Runs one LoreKeeper end-to-end suite; used by ctest (tests/e2e/CMakeLists.txt)
# and by hand:
#
#   LOREKEEPER_BIN=build/lorekeeper LOREKEEPER_DB_PATH=/tmp/e2e/store.db \
#     tests/e2e/run.sh sdk_v1|sdk_v2|inspector
#
# The store must have been synced from tests/fixtures/mirror-mini:
#   build/lorekeeper --db /tmp/e2e/store.db sync --source tests/fixtures/mirror-mini
#
# legacy_scenarios (the 03/04 spec scenarios through the older tool names) needs the full bundled store:
#   build/lorekeeper --db /tmp/e2e/full.db sync --source bundled --force --quiet
#   LOREKEEPER_BIN=build/lorekeeper LOREKEEPER_DB_PATH=/tmp/e2e/full.db tests/e2e/run.sh legacy_scenarios
#
# seed_examples (the spec's meaning-based search examples) needs the full bundled store indexed for meaning-based
# search, and the embedding model (scripts/setup.sh); LOREKEEPER_EMBED must not be off:
#   build/lorekeeper --db /tmp/e2e/indexed.db sync --source bundled --force --quiet
#   build/lorekeeper --db /tmp/e2e/indexed.db index --threads 2
#   LOREKEEPER_BIN=build/lorekeeper LOREKEEPER_DB_PATH=/tmp/e2e/indexed.db tests/e2e/run.sh seed_examples
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
which="${1:-}"

die() { printf 'e2e: %s\n' "$*" >&2; exit 1; }

case "$which" in
  sdk_v1|sdk_v2|inspector|legacy_scenarios|cross_entity|seed_examples|http_sdk|http_python) ;;
  *) die "usage: $0 sdk_v1|sdk_v2|inspector|legacy_scenarios|cross_entity|seed_examples|http_sdk|http_python" ;;
esac

if [[ "$which" == legacy_scenarios || "$which" == cross_entity ]]; then
  store_source=bundled
  sync_cmd="sync --source bundled --force --quiet"
elif [[ "$which" == seed_examples ]]; then
  store_source="bundled, then indexed"
  sync_cmd="sync --source bundled --force --quiet && ${LOREKEEPER_BIN:-lorekeeper} --db ${LOREKEEPER_DB_PATH:-<store>} index --threads 2"
else
  store_source=tests/fixtures/mirror-mini
  sync_cmd="sync --source tests/fixtures/mirror-mini"
fi

command -v node >/dev/null 2>&1 || die "node is not installed; run the project setup script (scripts/setup.sh)"
if [[ ! -d "$here/node_modules/@modelcontextprotocol" ]]; then
  die "tests/e2e/node_modules is missing: the MCP clients these tests drive are not installed. Run the project setup script (scripts/setup.sh), or: npm ci --prefix tests/e2e"
fi
[[ -n "${LOREKEEPER_BIN:-}" ]] || die "LOREKEEPER_BIN is not set (path to the lorekeeper binary)"
[[ -x "$LOREKEEPER_BIN" ]] || die "LOREKEEPER_BIN=$LOREKEEPER_BIN is not executable; build lorekeeper first"
[[ -n "${LOREKEEPER_DB_PATH:-}" ]] || die "LOREKEEPER_DB_PATH is not set (store synced from $store_source)"
[[ -f "$LOREKEEPER_DB_PATH" ]] || die "LOREKEEPER_DB_PATH=$LOREKEEPER_DB_PATH does not exist; create it with: $LOREKEEPER_BIN --db $LOREKEEPER_DB_PATH $sync_cmd"

# Absolute paths: the suites run from this directory.
LOREKEEPER_BIN="$(cd "$(dirname "$LOREKEEPER_BIN")" && pwd)/$(basename "$LOREKEEPER_BIN")"
LOREKEEPER_DB_PATH="$(cd "$(dirname "$LOREKEEPER_DB_PATH")" && pwd)/$(basename "$LOREKEEPER_DB_PATH")"
export LOREKEEPER_BIN LOREKEEPER_DB_PATH

cd "$here"
case "$which" in
  sdk_v1|sdk_v2|http_sdk)
    # Node's built-in runner; its closing summary ("# pass N" / "# fail N") is what CI reads.
    exec node --test --test-reporter=spec "$which.test.mjs"
    ;;
  cross_entity)
    # Questions across entities (derived facets, compare_editions, count_entities), on the full store.
    exec node --test --test-reporter=spec cross_entity.test.mjs
    ;;
  seed_examples)
    # The spec's meaning-based search examples (01-tools.md, 05-semantic-search-requirements.md) on the full,
    # indexed store; fails (never skips) when meaning-based search is not on.
    [[ "$(printf %s "${LOREKEEPER_EMBED:-}" | tr '[:upper:]' '[:lower:]' | tr -d '[:space:]')" != off ]] || die "LOREKEEPER_EMBED=off: seed_examples tests meaning-based search; unset it"
    exec node --test --test-reporter=spec seed_examples.test.mjs
    ;;
  legacy_scenarios)
    # The requirement scenarios of 03-mcp-tools-requirements.md and 04-documents-parameter.md, on the full store.
    exec node --test --test-reporter=spec legacy_scenarios.test.mjs
    ;;
  inspector)
    exec bash "$here/inspector.test.sh"
    ;;
  http_python)
    # The Python SDK (PyPI `mcp`, in tests/e2e/.venv made by scripts/setup.sh) over Streamable HTTP.
    [[ -x "$here/.venv/bin/python" ]] || die "tests/e2e/.venv is missing: run scripts/setup.sh (it installs the Python MCP SDK there)"
    exec "$here/.venv/bin/python" "$here/http_python_test.py"
    ;;
esac
