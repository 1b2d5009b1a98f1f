#!/bin/sh
# run_all.sh N...: every server of servers.txt under each of its revisions, with --call-all, once per N given.
here=$(cd "$(dirname "$0")" && pwd)
for n in "$@"; do
  while IFS='	' read -r name revs cmd; do
    for rev in $revs; do
      "$here/run.sh" "$name" "$rev" "$n" "$cmd" --call-all
    done
  done < "$here/servers.txt"
done
