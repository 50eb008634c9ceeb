#!/usr/bin/env bash
# `make demo`: the main job of Cairn on the embedded SQLite default, narrated.
# Uses a fresh database under .cairn-demo/ and a fixed clock so every run reads the same.
# Each part lives in scripts/demo.d/NN-name.sh and is run in order.
set -euo pipefail
cd "$(dirname "$0")/.."
export CAIRN_DB="$PWD/.cairn-demo/cairn.db"
rm -rf .cairn-demo
mkdir -p .cairn-demo
chmod 700 .cairn-demo

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
# ID_OF: the id printed by a --json command
json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
export -f step run json_field

for part in scripts/demo.d/*.sh; do
  # shellcheck source=/dev/null
  source "$part"
done
printf '\nDemo database: %s (remove with: rm -rf .cairn-demo)\n' "$CAIRN_DB"
