#!/usr/bin/env python3
"""get_weather: the `units` query value is translated into a weather provider's vocabulary.

Bug: `GET /weather?location=..&units=..` sends `metric` for celsius (and for null, which means celsius) and
`imperial` for fahrenheit, instead of the argument's value.
Where it ships: weather tools first written against OpenWeatherMap (`units=metric|imperial`) and later pointed at
another service behind the same tool schema.
Breaks: docs/protocol.md "`{name}` is the argument's value, percent-encoded (an absent or null value is empty ...)".
Written blind in round 16 from the docs alone (examples/buggy/BLIND16.md).
"""

from correct import changed_copy, cp, serve

changed_copy(cp, "expand",
             "        value = key if name == \"idempotency_key\" else arguments.get(name)\n",
             "        value = key if name == \"idempotency_key\" else arguments.get(name)\n"
             "        if name == \"units\":\n"
             "            value = {\"celsius\": \"metric\", \"fahrenheit\": \"imperial\", None: \"metric\"}.get(value, value)\n")

if __name__ == "__main__":
    serve(__file__)
