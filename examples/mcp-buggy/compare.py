"""compare.py results/TAG [results/TAG2]: per buggy server, the checks that FAIL or WARN on it but PASS (or are
SKIP) on its control (control for Python, ts_control for TypeScript): "caught by ...", else "missed". With a
second folder, the same for both, side by side (before, after)."""

import json
import pathlib
import sys


def bad(path: pathlib.Path) -> dict[str, str]:
    report = json.loads(path.read_text())
    return {check["id"]: check["status"] for check in report["checks"] if check["status"] in ("FAIL", "WARN")}


def caught(folder: pathlib.Path) -> dict[str, list[str]]:
    out = {}
    for path in sorted(folder.glob("*.json")):
        name = path.stem
        if name in ("control", "ts_control"):
            continue
        control = bad(folder / ("ts_control.json" if name.startswith("ts_") else "control.json"))
        mine = bad(path)
        out[name] = [f"{check} ({status})" for check, status in mine.items() if check not in control]
    return out


def main() -> None:
    runs = [caught(pathlib.Path(arg)) for arg in sys.argv[1:]]
    for name in runs[0]:
        cells = [", ".join(run.get(name, [])) or "missed" for run in runs]
        print(f"{name}: " + " | ".join(cells))
    for arg, run in zip(sys.argv[1:], runs):
        print(f"{arg}: caught {sum(1 for v in run.values() if v)} of {len(run)}")


if __name__ == "__main__":
    main()
