"""Bug: canonical JSON escapes non-ASCII characters (json.dumps's default ensure_ascii=True), so the approval hash
of arguments holding non-ASCII text is not the approver's.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
import json

from correct import cp, serve


def canonical(value):
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda item: item[0].encode("utf-8", "surrogatepass"))
        # BUG(canonical_ascii_escapes): json.dumps without ensure_ascii=False (keys and strings)
        return "{" + ",".join(json.dumps(k) + ":" + canonical(v) for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical(item) for item in value) + "]"
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return json.dumps(value)  # BUG(canonical_ascii_escapes): same change
    if isinstance(value, float):
        if value.is_integer() and abs(value) <= 2 ** 53:
            return str(int(value))
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        return mantissa + ("e" + str(int(exponent)) if exponent else "")
    raise TypeError(type(value))


cp.canonical = canonical

if __name__ == "__main__":
    serve(__file__)
