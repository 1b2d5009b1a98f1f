"""Buggy executor: URL templates are filled from the call's arguments only, so a status query asks for no key.

Behaviour: `{name}` placeholders are expanded from the arguments; `{idempotency_key}` is not an argument, so it
expands to the empty string (an absent value is empty): the reconciliation query is `GET
/refunds?idempotency_key=` (the Idempotency-Key header still carries the key). The service finds nothing for the
empty key, the executor reads that as "never applied" and, after the earlier deadline, sends the side effect again.

Where it ships: generic template expanders (`template.format(**arguments)`, URI-template libraries fed the tool
arguments) reused for the status query without adding the key to the variables.

Doc sentence it breaks: docs/protocol.md, "`{name}` is the argument's value, percent-encoded (an absent or null
value is empty), `{idempotency_key}` is the operation's key", and the reconciliation table (the status query asks
by the operation's key).
"""

from correct import cp, serve


def expand(template, arguments, key):
    method, _, path = template.partition(" ")

    def value_of(match):
        name = match.group(1)
        # BUG: every placeholder comes from the arguments; the key is only a header.
        value = arguments.get(name)
        if value is None:
            value = ""
        elif not isinstance(value, str):
            value = cp.json.dumps(value)
        return cp.urllib.parse.quote(value, safe="-._~")

    return method, cp.re.sub(r"\{([a-z_]+)\}", value_of, path)


cp.expand = expand

if __name__ == "__main__":
    serve(__file__)
