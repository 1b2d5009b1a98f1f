"""VARIANT: `details.missing` and `details.unexpected` list their JSON pointers sorted (bytewise).

Behaviour: a schema violation's `missing` and `unexpected` lists hold the same pointers as the example's, sorted by
their UTF-8 bytes instead of in the order the validator met them (schema order for `required`, argument order for
`additionalProperties`). Everything else is the example's.

Where it ships: validators that collect member names in a set and sort them for stable, diffable output
(pydantic-style error aggregation, ajv `allErrors` post-processing, Go's sorted map keys).

Relies on docs/errors.md schema_violation: "`missing` and `unexpected`, when there are any, list the JSON pointers of
the members that `required` found missing and that `additionalProperties` did not allow, so a client never parses a
message for them" (no order is given; only `violations` and `path` name "the first violation").
"""

from correct import cp, serve

_decode = cp.decode


def decode(call, tools):
    try:
        return _decode(call, tools)
    except cp.Refusal as refusal:
        if refusal.code == "schema_violation":
            for name in ("missing", "unexpected"):
                if name in refusal.details:
                    # VARIANT: sorted pointers.
                    ordered = sorted(refusal.details[name], key=lambda p: p.encode("utf-8", "surrogatepass"))
                    refusal.details[name] = ordered
        raise


cp.decode = decode

if __name__ == "__main__":
    serve(__file__)
