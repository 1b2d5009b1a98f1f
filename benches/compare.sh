#!/usr/bin/env bash
# Runs the Rust benches and the Python baseline in one go and prints the ratio table.
#
#   benches/compare.sh           full run (criterion defaults; 7–9 minutes on 2 quiet cores)
#   benches/compare.sh --quick   criterion's quick mode and 5 Python repeats (a few minutes; noisier)
#
# Python's jsonschema goes into a venv under the target directory, never into the system. Results land in
# <target>/bench-compare/: criterion/ (criterion's output), paired.json (the decode bench's paired run),
# python-*.json, and table.md (the printed table).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=()
case "${1:-}" in
  --quick) quick=(--quick) ;;
  "") ;;
  *) echo "usage: benches/compare.sh [--quick]" >&2; exit 2 ;;
esac

target_dir=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
out="$target_dir/bench-compare"
venv="$target_dir/bench-venv"
rm -rf "$out"
mkdir -p "$out"

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r benches/python/requirements.txt

echo "== building benches" >&2
cargo bench -p callproof-benches --no-run --bench decode --bench idempotency --bench end_to_end 2>&1 | tail -1 >&2
cargo build --release -q -p callproof-benches --bin ratios

# Python runs before and after the Rust decode benches; the table keeps its faster median, so a slow spell on a
# shared machine can only make the Rust side look worse.
echo "== Python baseline (1/2)" >&2
"$venv/bin/python" benches/python/decode_baseline.py "${quick[@]}" --out "$out/python-1.json"
for bench in decode idempotency end_to_end; do
  echo "== cargo bench --bench $bench" >&2
  CALLPROOF_BENCH_OUT="$out" CRITERION_HOME="$out/criterion" cargo bench -q -p callproof-benches --bench "$bench" -- "${quick[@]}" >&2
  if [ "$bench" = decode ]; then
    echo "== Python baseline (2/2)" >&2
    "$venv/bin/python" benches/python/decode_baseline.py "${quick[@]}" --out "$out/python-2.json"
  fi
done

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(rustc --version), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$target_dir/release/ratios" "$out"
