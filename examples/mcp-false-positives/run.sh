#!/bin/sh
# run.sh NAME REVISION N "COMMAND" [extra callproof options]: one `callproof mcp` run, its JSON report kept
# under results/NAME.REVISION.N.json and its exit code in results/NAME.REVISION.N.rc. CALLPROOF=BIN picks
# another binary (default target/release/callproof).
name=$1; rev=$2; n=$3; cmd=$4; shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/results"
out="$here/results/$name.$rev.$n"
"${CALLPROOF:-target/release/callproof}" mcp --format json --mcp-revision "$rev" --server "$cmd" "$@" > "$out.json" 2> "$out.stderr"
echo $? > "$out.rc"
echo "$name $rev $n rc=$(cat "$out.rc")"
