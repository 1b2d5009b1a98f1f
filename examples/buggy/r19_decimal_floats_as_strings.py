"""Blind round 19: downstream numbers parsed as Decimal come back as strings.

The change: to keep money exact, the executor parses downstream bodies with `json.loads(body,
parse_float=decimal.Decimal)`. Decimal is a `numbers.Number`, so output validation passes it as a number, and the
envelope writer, which cannot serialise Decimal, was given `default=str` when that first crashed. Every fractional
number of a result (a temperature) then reaches the model as a string, `"21.5"`. Where it ships: Python services
that adopt Decimal for amounts (`parse_float=Decimal`, DRF's `COERCE_DECIMAL_TO_STRING`, `default=str` in a
`json.dumps` call).

Doc sentence it breaks: docs/conformance-app.md, "2xx with a JSON body | applied | the body, projected onto the
output schema's properties and validated" (get_weather `temperature` is a `number`); docs/checks.md
`result-matches-downstream`: "values are equal, numbers by value".
"""

import decimal
import json
import sys

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "call_tool",
             'return "SUCCEEDED", project(tool, json.loads(body))',
             'return "SUCCEEDED", project(tool, json.loads(body, parse_float=decimal.Decimal))')
cp.decimal = decimal


def send(self, message):
    line = json.dumps(message, allow_nan=False, separators=(",", ":"), default=str) + "\n"
    with self.lock:
        sys.stdout.write(line)
        sys.stdout.flush()


cp.Wire.send = send

if __name__ == "__main__":
    serve(__file__)
