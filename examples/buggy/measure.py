#!/usr/bin/env python3
"""Runs the whole suite against every buggy executor of manifest.toml (and the correct example) and says which
checks caught each one.

    python3 examples/buggy/measure.py --callproof target/debug/callproof [--profile must --profile all]
                                      [--only NAME ...] [--out target/buggy-results.json]

Run it from the repository root (conform reads scenarios/ from there), with a python3 that has jsonschema first
on PATH. For each executor and profile it records the exit code and every check that failed, per scenario. A
check counts as catching the bug only if the correct example (examples/python) does not fail that check on that
scenario in the same profile: a check that fails the correct executor too is a false positive, not a catch.
The JSON it writes is the evidence behind RESULTS.md; it prints a Markdown table on stdout.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = "examples/python/callproof_executor.py"


def conform(callproof, command, profile, jobs, scenarios=()):
    """One `callproof conform` run: (exit code, the failed (scenario, check) pairs with their first message)."""
    args = [callproof, "conform", *scenarios, "--executor", command, "--profile", profile, "--format", "json",
            "--jobs", str(jobs)]
    started = time.monotonic()
    ran = subprocess.run(args, capture_output=True, text=True)
    seconds = time.monotonic() - started
    try:
        report = json.loads(ran.stdout)
    except ValueError:
        return {"exit_code": ran.returncode, "seconds": seconds, "failed": {}, "broke": ran.stderr[-2000:]}
    failed, broke = {}, []
    for scenario in report["scenarios"]:
        if scenario.get("protocol_break"):
            broke.append("%s: %s" % (scenario["id"], scenario.get("reason")))
        for check in scenario["checks"]:
            if check["status"] == "fail":
                messages = [violation["message"] for violation in check["violations"]]
                failed["%s %s" % (scenario["id"], check["id"])] = messages[:3]
    return {"exit_code": ran.returncode, "seconds": round(seconds, 1), "failed": failed, "broke": broke,
            "summary": report["summary"]}


def catches(run, example_run):
    """The checks that failed here and not on the correct example (same scenario, same profile)."""
    checks = {}
    for pair in run["failed"]:
        if pair not in example_run["failed"]:
            scenario, check = pair.split(" ")
            checks.setdefault(check, []).append(scenario)
    return checks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callproof", default="target/debug/callproof")
    parser.add_argument("--profile", action="append", choices=("must", "all"))
    parser.add_argument("--only", action="append", help="a manifest name (repeatable)")
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--out", default="target/buggy-results.json")
    options = parser.parse_args()
    profiles = options.profile or ["must", "all"]
    with open(os.path.join(HERE, "manifest.toml"), "rb") as manifest:
        entries = tomllib.load(manifest)["executor"]
    if options.only:
        entries = [entry for entry in entries if entry["name"] in options.only]
    results = {"callproof": options.callproof, "profiles": profiles, "example": {}, "executors": {}}
    for profile in profiles:
        results["example"][profile] = conform(options.callproof, "python3 " + EXAMPLE, profile, options.jobs)
        print("example %s: exit %d, failed %s" % (profile, results["example"][profile]["exit_code"],
                                                  sorted(results["example"][profile]["failed"])), file=sys.stderr)
    for entry in entries:
        command = "python3 " + shlex.quote("examples/buggy/%s.py" % entry["name"])
        runs = {}
        for profile in profiles:
            run = conform(options.callproof, command, profile, options.jobs)
            run["catches"] = catches(run, results["example"][profile])
            runs[profile] = run
            print("%s %s: exit %d, caught by %s" % (entry["name"], profile, run["exit_code"], sorted(run["catches"])),
                  file=sys.stderr)
        results["executors"][entry["name"]] = runs
    os.makedirs(os.path.dirname(options.out) or ".", exist_ok=True)
    with open(options.out, "w") as out:
        json.dump(results, out, indent=1, sort_keys=True)
    print("| executor | " + " | ".join("`--profile %s`" % profile for profile in profiles) + " |")
    print("|---|" + "---|" * len(profiles))
    for entry in entries:
        cells = []
        for profile in profiles:
            run = results["executors"][entry["name"]][profile]
            caught = ", ".join("`%s`" % check for check in sorted(run["catches"]))
            if run["exit_code"] == 3:
                cells.append("broke the protocol (exit 3)")
            elif entry["expected"] == "correct":
                # A correct variant: any check it fails beyond the example's is a false positive.
                cells.append(caught and "**false positive**: " + caught or "passes")
            else:
                cells.append(caught and "caught: " + caught or "**missed**")
        print("| `%s` | %s |" % (entry["name"], " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
