"""Correct variant: every number of an `ok` result is written in Ryu `d2s` scientific form.

The change: the protocol writer serializes the `result` of a success with every number in the shortest
round-trip scientific notation that Ryu's `d2s` prints: `21.5` -> `2.15E1`, `30` -> `3E1`, `100` -> `1E2`,
`0` -> `0E0`, `0.5` -> `5E-1`. The value is the same number; only its spelling changes, for first answers,
replays, reconciliations and kept poll answers alike.

Where it ships: C/C++ or Java services that format doubles with Ryu's `d2s` (or Java's `Double.toString` above
10^7, or `printf("%.17g")`-style writers), re-serializing a tool's result on its way back to the agent runtime.

Doc sentences relied on: docs/checks.md `result-matches-downstream`: "values are equal, numbers by value";
`body-is-arguments`: "numbers by value (`30`, `30.0` and `3e1` are one number)"; `output-invalid-withheld`: the
output schema is read "as leniently as the docs allow: `12.0` is an integer". RFC 8259's number grammar allows
an exponent with `E` and no fraction.
"""

import decimal
import json

from correct import cp, serve


def d2s(value):
    number = float(value)
    if number == 0:
        return "-0E0" if str(number).startswith("-") else "0E0"
    sign, digits, exponent = decimal.Decimal(repr(number)).normalize().as_tuple()
    text = "".join(str(d) for d in digits)
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return ("-" if sign else "") + mantissa + "E" + str(exponent + len(text) - 1)


def scientific_text(value):
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + scientific_text(v)
                              for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(scientific_text(v) for v in value) + "]"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return d2s(value)


_PLACEHOLDER = "\u0000result\u0000"


def send(self, message):
    envelope = message.get("envelope") if message.get("type") == "result" else None
    if isinstance(envelope, dict) and envelope.get("ok") is True and "result" in envelope:
        shell = dict(message, envelope=dict(envelope, result=_PLACEHOLDER))
        line = json.dumps(shell, allow_nan=False, separators=(",", ":"))
        line = line.replace(json.dumps(_PLACEHOLDER), scientific_text(envelope["result"]), 1) + "\n"
    else:
        line = json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n"
    with self.lock:
        cp.sys.stdout.write(line)
        cp.sys.stdout.flush()


cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
