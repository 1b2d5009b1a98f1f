"""The Python peer of the decode bench: pydantic 2 (pydantic-core) strict models, on the same payloads.

What a Python executor that cares about speed does (FastMCP, pydantic-ai, the OpenAI Agents SDK validate with
pydantic-core): a model built once with `strict=True` and `extra='forbid'`, `model_validate_json` on the raw text,
then the same work as the Rust decode + key: the canonical form (`json.dumps` with sorted keys and
separators (',', ':')), its SHA-256 (the arguments hash), and the idempotency key, a SHA-256 over
`t_1 FF u_1 FF <tool> FF "a" <the arguments hash's 32 bytes>` as `derive_key` hashes it (record format 2).

The models are built from the same JSON Schemas the Rust side reads (the catalog's refund_order, the fixture's
create_order), by the small translation below; it covers the keywords those schemas use and refuses any other.

Usage: peers.py [--quick] [--out FILE]. Prints a table on stderr and, with --out, writes
{"runtime": ..., "peers": {"pydantic": {"version": ..., "cases": {name: {"median_ns", "outcome", "hash"}}}}}
for the ratio table (benches/src/bin/ratios.rs). `outcome` is "ok" or "refused", computed by running the case.
"""

import hashlib
import json
import pathlib
import platform
import statistics
import sys
import timeit
from importlib.metadata import version
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from bench_cli import options

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "benches" / "fixtures"
KNOWN = {
    "$schema", "type", "properties", "required", "additionalProperties", "items", "enum", "pattern",
    "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems",
}
STRICT = ConfigDict(strict=True, extra="forbid")


def annotation(schema, name):
    """The pydantic type of a JSON Schema, constraints attached."""
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f"{name}: keywords this translation does not cover: {sorted(unknown)}")
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    branches = [branch(schema, kind, name) for kind in kinds]
    return branches[0] if len(branches) == 1 else Union[tuple(branches)]


def branch(schema, kind, name):
    if "enum" in schema:
        values = tuple(value for value in schema["enum"] if kind_of(value) == kind)
        return type(None) if values == (None,) else Literal[values]
    if kind == "null":
        return type(None)
    if kind == "boolean":
        return bool
    if kind == "string":
        return Annotated[str, Field(pattern=schema.get("pattern"), min_length=schema.get("minLength"),
                                    max_length=schema.get("maxLength"))]
    if kind == "integer":
        return Annotated[int, Field(ge=schema.get("minimum"), le=schema.get("maximum"))]
    if kind == "array":
        item = annotation(schema["items"], f"{name}_item")
        return Annotated[list[item], Field(min_length=schema.get("minItems"), max_length=schema.get("maxItems"))]
    if kind == "object":
        return model(schema, name)
    raise ValueError(f"{name}: type {kind} is not covered")


def kind_of(value):
    return {type(None): "null", bool: "boolean", str: "string", int: "integer"}[type(value)]


def model(schema, name):
    if schema.get("additionalProperties") is not False:
        raise ValueError(f"{name}: only closed objects are covered")
    required = set(schema.get("required", []))
    fields = {}
    for key, value in schema["properties"].items():
        field_type = annotation(value, f"{name}_{key}")
        fields[key] = (field_type, ...) if key in required else (Optional[field_type], None)
    return create_model(name, __config__=STRICT, **fields)


def make_decoder(schema, tool):
    arguments_model: type[BaseModel] = model(schema, tool)
    key_prefix = b"t_1\xffu_1\xff" + tool.encode() + b"\xffa"

    def decode_and_key(raw: str) -> Any:
        try:
            value = arguments_model.model_validate_json(raw)
        except ValidationError:
            return None
        canonical = json.dumps(value.model_dump(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(canonical.encode()).digest()
        key = hashlib.sha256(key_prefix + digest).hexdigest()
        return digest.hex(), key

    return decode_and_key


def cases():
    catalog = json.loads((ROOT / "scenarios" / "catalog" / "refund_order.json").read_text(encoding="utf-8"))
    refund = make_decoder(catalog["input_schema"], "refund_order")
    order_schema = json.loads((FIXTURES / "create_order.schema.json").read_text(encoding="utf-8"))
    order = make_decoder(order_schema, "create_order")
    for file in ["refund_cases.json", "acceptance_cases.json"]:
        for name, text in json.loads((FIXTURES / file).read_text(encoding="utf-8")).items():
            yield name, refund, text
    for name, file in [("order_4k", "create_order_4k.json"), ("order_64k", "create_order_64k.json")]:
        yield name, order, (FIXTURES / file).read_text(encoding="utf-8")


def timed(decode, raw, repeats):
    timer = timeit.Timer(lambda: decode(raw))
    number, _ = timer.autorange()
    per_call = sorted(total / number * 1e9 for total in timer.repeat(repeat=repeats, number=number))
    return {"median_ns": statistics.median(per_call), "min_ns": per_call[0], "repeats": repeats}


def main():
    repeats, out = options(__doc__)

    results = {}
    for name, decode, raw in cases():
        answer = decode(raw)
        result = timed(decode, raw, repeats)
        result["outcome"] = "refused" if answer is None else "ok"
        result["hash"] = None if answer is None else answer[0]
        results[name] = result
        print(f"pydantic {name:36} {result['median_ns'] / 1000:10.2f} µs  {result['outcome']}", file=sys.stderr)

    report = {
        "runtime": f"Python {platform.python_version()}",
        "peers": {"pydantic": {"version": f"pydantic {version('pydantic')} (pydantic-core {version('pydantic-core')})",
                               "cases": results}},
    }
    if out:
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
