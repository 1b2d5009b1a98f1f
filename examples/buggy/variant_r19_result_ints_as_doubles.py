"""Correct variant: every number of an `ok` result goes on the wire as a double (`30` -> `30.0`).

The change: the protocol writer serializes the `result` of a success with every number as a float literal, so
`{"amount": 30}` is written `{"amount":30.0}` (and `records: 100` as `100.0`), whether the answer is a first
execution, a replay, a reconciliation or a kept poll answer. Validation still runs on the value the downstream
gave (integers stay integers for the output schema); only the re-serialization changes.

Where it ships: results that cross a `google.protobuf.Struct` on their way out (a gRPC tool service in front of
the executor: `Value.number_value` is a double, and `json_format.MessageToDict` gives `30.0`), or any pipeline that
stores results in a float64-only column before writing them.

Doc sentences relied on: docs/checks.md `result-matches-downstream`: "values are equal, numbers by value (`12`
and `12.0` are one number)"; `output-invalid-withheld`: the output schema "is read as plain JSON Schema 2020-12,
as leniently as the docs allow: `12.0` is an integer". RFC 8259 gives a JSON number no int/float distinction.
"""

import json

from correct import cp, serve


def doubles_text(value):
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + doubles_text(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(doubles_text(v) for v in value) + "]"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(float(value))


_PLACEHOLDER = "\u0000result\u0000"


def send(self, message):
    envelope = message.get("envelope") if message.get("type") == "result" else None
    if isinstance(envelope, dict) and envelope.get("ok") is True and "result" in envelope:
        shell = dict(message, envelope=dict(envelope, result=_PLACEHOLDER))
        line = json.dumps(shell, allow_nan=False, separators=(",", ":"))
        line = line.replace(json.dumps(_PLACEHOLDER), doubles_text(envelope["result"]), 1) + "\n"
    else:
        line = json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n"
    with self.lock:
        cp.sys.stdout.write(line)
        cp.sys.stdout.flush()


cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
