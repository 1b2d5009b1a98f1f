"""The outside baseline: the seed's Python strict decode, timed on the same payloads as the Rust benches.

The decode below behaves like the seed article's `decode_arguments` (section 2.4): `json.loads`, a top-level
object check, then every error of a Draft 2020-12 validator built once, sorted by path, the first one
reported. It does not refuse duplicate keys (json.loads keeps the last one), has no depth limit of its own and
computes no canonical form or hash: it does less than the Rust side, so a ratio against it is conservative.

Usage: decode_baseline.py [--quick] [--out FILE]. Prints a table on stderr and, with --out, writes
{"cases": {name: {"median_ns": ..., ...}}, ...} as JSON for the ratio table (benches/src/bin/ratios.rs).
"""

import json
import pathlib
import platform
import statistics
import sys
import timeit
from importlib.metadata import version

from jsonschema import Draft202012Validator

from bench_cli import options

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "benches" / "fixtures"


class Refused(Exception):
    """A decode refusal; args[0] is the error body."""


def make_decoder(schema):
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    def decode(raw):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as error:
            raise Refused({"code": "invalid_json", "details": {"position": error.pos}}) from error
        if not isinstance(value, dict):
            raise Refused({"code": "invalid_arguments", "details": {"reason": "not_an_object"}})
        errors = sorted(validator.iter_errors(value), key=lambda error: list(error.path))
        if errors:
            worst = errors[0]
            where = ".".join(str(step) for step in worst.path) or "$"
            raise Refused({"code": "schema_violation", "message": worst.message, "details": {"path": where}})
        return value

    return decode


def outcome(decode, raw):
    try:
        decode(raw)
        return "ok"
    except Refused as refused:
        return refused.args[0]["code"]


def cases():
    catalog = json.loads((ROOT / "scenarios" / "catalog" / "refund_order.json").read_text(encoding="utf-8"))
    refund = make_decoder(catalog["input_schema"])
    order = make_decoder(json.loads((FIXTURES / "create_order.schema.json").read_text(encoding="utf-8")))
    refund_cases = json.loads((FIXTURES / "refund_cases.json").read_text(encoding="utf-8"))
    for name, text in refund_cases.items():
        yield name, refund, text
    for name, file in [("order_4k", "create_order_4k.json"), ("order_64k", "create_order_64k.json")]:
        yield name, order, (FIXTURES / file).read_text(encoding="utf-8")


def measure(decode, raw, repeats):
    def once():
        try:
            decode(raw)
        except Refused:
            pass

    timer = timeit.Timer(once)
    number, _ = timer.autorange()
    per_call = [total / number * 1e9 for total in timer.repeat(repeat=repeats, number=number)]
    return {
        "median_ns": statistics.median(per_call),
        "min_ns": min(per_call),
        "max_ns": max(per_call),
        "calls_per_repeat": number,
        "repeats": repeats,
    }


def main():
    repeats, out = options(__doc__)

    results = {}
    for name, decode, raw in cases():
        result = measure(decode, raw, repeats)
        result["outcome"] = outcome(decode, raw)
        result["bytes"] = len(raw.encode("utf-8"))
        results[name] = result
        print(f"{name:28} {result['median_ns'] / 1000:12.2f} µs  {result['outcome']}", file=sys.stderr)

    report = {
        "python": platform.python_version(),
        "jsonschema": version("jsonschema"),
        "cases": results,
    }
    if out:
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
