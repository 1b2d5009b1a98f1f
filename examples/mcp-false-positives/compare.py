"""compare.py BEFORE_DIR AFTER_DIR: per server and revision, the FAIL/WARN checks (with failure counts) before and after."""
import json, os, sys
before, after = sys.argv[1], sys.argv[2]
def load(path):
    try:
        r = json.load(open(path))
    except Exception as e:
        return None
    return {c['id'][4:]: (c['status'], len(c.get('failures', []))) for c in r['checks'] if c['status'] in ('FAIL', 'WARN')}
tot = {'before': [0, 0], 'after': [0, 0]}
for name in sorted(os.listdir(after)):
    if not name.endswith('.json'):
        continue
    key = name[:-5]
    b = load(os.path.join(before, key + '.1.json')) or load(os.path.join(before, key + '.json'))
    a = load(os.path.join(after, name))
    if a is None or b is None:
        print(f"{key}: missing ({'before' if b is None else 'after'})"); continue
    for label, d in (('before', b), ('after', a)):
        tot[label][0] += sum(1 for s, _ in d.values() if s == 'FAIL')
        tot[label][1] += sum(1 for s, _ in d.values() if s == 'WARN')
    gone = sorted(set(b) - set(a)); new = sorted(set(a) - set(b))
    changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    fa = sum(1 for s, _ in a.values() if s == 'FAIL'); fb = sum(1 for s, _ in b.values() if s == 'FAIL')
    wa = sum(1 for s, _ in a.values() if s == 'WARN'); wb = sum(1 for s, _ in b.values() if s == 'WARN')
    print(f"{key}: FAIL {fb}->{fa}, WARN {wb}->{wa}")
    for k in gone: print(f"    gone:    {k} {b[k][0]} ({b[k][1]})")
    for k in new: print(f"    new:     {k} {a[k][0]} ({a[k][1]})")
    for k in changed: print(f"    changed: {k} {b[k]} -> {a[k]}")
print("totals FAIL/WARN checks:", tot)
