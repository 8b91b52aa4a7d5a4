#!/usr/bin/env bash
# Makes data/open5e-vectors.bin again: the passage vectors of the bundled Open5e snapshot, computed by LoreKeeper's
# own encoder (all-MiniLM-L6-v2, the model scripts/setup.sh installs) from a store holding the snapshot alone, and
# written with the model's SHA-256 and each passage's text hash (include/lorekeeper/search/precomputed.hpp).
# Run it after changing what is embedded (src/search/passages.cpp, data/search-hints.tsv, the snapshot or its
# mapping), then rebuild: the fidelity test fails while the file does not cover every bundled entity.
#   scripts/make-vectors.sh [BUILD_DIR] [THREADS]      (defaults: build, 2; about 4 minutes on two cores)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(cd "${1:-$root/build}" && pwd)/lorekeeper"
threads="${2:-2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"  # no .env of the caller's directory
LOREKEEPER_EMBED=off "$bin" --db "$work/store.db" sync --source bundled --force --quiet
"$bin" --db "$work/store.db" index --recompute --threads "$threads" --export "$root/data/open5e-vectors.bin"
ls -l "$root/data/open5e-vectors.bin"
