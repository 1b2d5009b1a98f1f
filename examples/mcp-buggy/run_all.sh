#!/bin/sh
# run_all.sh TAG: `callproof mcp --call-all` (JSON report) on every server of this folder, kept under
# results/TAG/NAME.json; then `python3 compare.py results/TAG` prints what each buggy server fails beyond its
# control. CALLPROOF=BIN (default target/debug/callproof), PY=the Python with mcp 1.30.0 (default python3).
# Run from examples/mcp-buggy, with ts/node_modules in place (README.md).
tag=${1:-run}
bin=${CALLPROOF:-../../target/debug/callproof}
py=${PY:-python3}
mkdir -p "results/$tag"
for file in *.py ts/*.mjs; do
  case $file in show.py|compare.py|ts/inventory.mjs) continue ;; esac
  name=$(basename "$file" | sed 's/\.\(py\|mjs\)$//')
  case $file in *.mjs) cmd="node $file"; name="ts_$name" ;; *) cmd="$py $file" ;; esac
  "$bin" mcp --format json --call-all --server "$cmd" > "results/$tag/$name.json" 2> "results/$tag/$name.stderr"
  echo "$name rc=$?"
done
