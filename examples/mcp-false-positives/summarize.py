"""Prints the FAIL and WARN checks of `callproof mcp --format json` reports, with each failure's reason."""
import json
import sys

for path in sys.argv[1:]:
    try:
        report = json.load(open(path))
    except Exception as error:  # an empty file: the run did not finish
        print(f"== {path}: no report ({error})")
        continue
    print(f"== {path}: revision {report.get('revision')} protocol {report.get('protocol_version')} "
          f"server_info {report.get('server_info')} called {report.get('called')}")
    for check in report["checks"]:
        if check["status"] in ("FAIL", "WARN"):
            print(f"  {check['status']} {check['id']} ({len(check.get('failures', []))})")
            for failure in check.get("failures", [])[:3]:
                answer = (failure.get("answer") or "")[:220]
                print(f"      - [{failure.get('tool')}] {failure['why'][:200]}")
                if answer:
                    print(f"        answer: {answer}")
