"""Per server and revision: the FAIL and WARN checks of each run (results/NAME.REV.N.json), and whether the
runs agree (a check failing in some runs only would be a flake)."""
import collections
import glob
import json
import os

runs = collections.defaultdict(dict)
for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__) or ".", "results", "*.json"))):
    name, rev, n = os.path.basename(path)[: -len(".json")].rsplit(".", 2)
    try:
        report = json.load(open(path))
    except Exception:
        runs[(name, rev)][n] = None
        continue
    runs[(name, rev)][n] = {c["id"]: c["status"] for c in report["checks"] if c["status"] in ("FAIL", "WARN")}
for (name, rev), by_run in sorted(runs.items()):
    sets = [frozenset(v.items()) if v is not None else None for v in by_run.values()]
    same = len(set(sets)) == 1
    union = {}
    for v in by_run.values():
        union.update(v or {})
    fails = sorted(k for k, s in union.items() if s == "FAIL")
    warns = sorted(k for k, s in union.items() if s == "WARN")
    print(f"{name} {rev}: runs {sorted(by_run)} {'identical' if same else 'DIFFER'}")
    print(f"   FAIL: {', '.join(fails)}")
    print(f"   WARN: {', '.join(warns)}")
    if not same:
        for n, v in sorted(by_run.items()):
            print(f"   run {n}: {sorted((v or {}).items())}")
