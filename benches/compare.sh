#!/usr/bin/env bash
# Runs the Rust benches, the Python baseline and the peers (pydantic, ajv, zod) in one go and prints the ratio table.
#
#   benches/compare.sh           full run (criterion defaults; 7–9 minutes on 2 quiet cores)
#   benches/compare.sh --quick   criterion's quick mode and 5 Python and peer repeats (a few minutes; noisier)
#
# Python's jsonschema goes into a venv under the target directory, never into the system; so do the peers, pinned:
# pydantic into <target>/bench-python-venv (benches/python/peers-requirements.txt), ajv and zod into
# <target>/bench-node (npm ci of benches/node/package-lock.json). Results land in <target>/bench-compare/:
# criterion/ (criterion's output), paired.json (the decode bench's paired run), python-*.json, peers-*.json,
# run.json (cores, the 1-minute load average just before the first timed step and at the end, the wall time, whether
# target/release was built at the start) and table.md (the printed table; a run taken above a load of 1.5 per core
# is marked noisy there).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

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
# Whether this run starts with a built target/release (the wall time differs by the build).
release_built=false
if [ -x "$target_dir/release/ratios" ]; then release_built=true; fi
load1() { cut -d' ' -f1 /proc/loadavg; }

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r benches/python/requirements.txt

peer_venv="$target_dir/bench-python-venv"
node_dir="$target_dir/bench-node"
if [ ! -x "$peer_venv/bin/python" ]; then
  python3 -m venv "$peer_venv"
fi
"$peer_venv/bin/python" -m pip install --quiet --disable-pip-version-check -r benches/python/peers-requirements.txt
mkdir -p "$node_dir"
cp benches/node/package.json benches/node/package-lock.json "$node_dir/"
npm ci --prefix "$node_dir" --ignore-scripts --no-audit --no-fund --loglevel=error >&2

# The peers: pydantic strict, then ajv and zod, each doing decode + key's work on the same payloads.
peers() {
  "$peer_venv/bin/python" benches/python/peers.py "${quick[@]}" --out "$out/peers-python-$1.json"
  node benches/node/peers.mjs --modules "$node_dir/node_modules" "${quick[@]}" --out "$out/peers-node-$1.json"
}

echo "== building benches" >&2
cargo bench -p callproof-benches --no-run --bench decode --bench idempotency --bench end_to_end 2>&1 | tail -1 >&2
cargo build --release -q -p callproof-benches --bin ratios

# Python and the peers run before and after the Rust decode benches; the table keeps each one's faster median, so
# a slow spell on a shared machine can only make the Rust side look worse.
load_before=$(load1)
echo "== load at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "== Python baseline and peers (1/2)" >&2
"$venv/bin/python" benches/python/decode_baseline.py "${quick[@]}" --out "$out/python-1.json"
peers 1
for bench in decode idempotency end_to_end; do
  echo "== cargo bench --bench $bench" >&2
  CALLPROOF_BENCH_OUT="$out" CRITERION_HOME="$out/criterion" cargo bench -q -p callproof-benches --bench "$bench" -- "${quick[@]}" >&2
  if [ "$bench" = decode ]; then
    echo "== Python baseline and peers (2/2)" >&2
    "$venv/bin/python" benches/python/decode_baseline.py "${quick[@]}" --out "$out/python-2.json"
    peers 2
  fi
done

load_after=$(load1)
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(rustc --version), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
printf '{"cores": %s, "load_before": %s, "load_after": %s, "wall_s": %s, "quick": %s, "release_built": %s}\n' \
  "$(nproc)" "$load_before" "$load_after" "$(( $(date +%s) - started ))" \
  "$([ ${#quick[@]} -gt 0 ] && echo true || echo false)" "$release_built" > "$out/run.json"
"$target_dir/release/ratios" "$out"
