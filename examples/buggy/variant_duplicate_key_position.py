"""VARIANT: a `duplicate_key` refusal of raw argument text also gives the repeated key's position.

Behaviour: `invalid_arguments` with `reason: duplicate_key` carries, beside the example's `path`, the `line`,
`column` (1-based, in bytes) and `offset` (0-based byte) of the repeated member's key (its opening quote), counted
as docs/errors.md counts `invalid_json` positions. Arguments given as a parsed value have no text and no position.

Where it ships: strict JSON decoders that report where a duplicate key sits (serde_json's `Error::line/column`,
simdjson's error offsets, Jackson's `JsonLocation` with `STRICT_DUPLICATE_DETECTION`).

Relies on docs/errors.md invalid_arguments: "`duplicate_key` (with the JSON pointer `path` of the repeated member
and its position)" (the example leaves the position out), and for positions: "`line` and `column` (1-based, in
bytes) and `offset` (0-based byte)".
"""

import json

from correct import cp, serve

_parse_raw = cp.parse_raw
_WS = " \t\n\r"


class _Scan:
    """A small position-keeping walk over JSON text, enough to find the second occurrence of a key at a path."""

    def __init__(self, text):
        self.text, self.i = text, 0

    def ws(self):
        while self.i < len(self.text) and self.text[self.i] in _WS:
            self.i += 1

    def string(self):
        start = self.i
        self.i += 1
        while self.text[self.i] != '"':
            self.i += 2 if self.text[self.i] == "\\" else 1
        self.i += 1
        return json.loads(self.text[start:self.i]), start

    def value(self, path, found):
        self.ws()
        char = self.text[self.i]
        if char == "{":
            self.i += 1
            seen = set()
            self.ws()
            if self.text[self.i] == "}":
                self.i += 1
                return
            while True:
                self.ws()
                key, at = self.string()
                if key in seen and len(path) == 1 and path[0] == key and not found:
                    found.append(at)
                    raise StopIteration
                seen.add(key)
                self.ws()
                self.i += 1  # ':'
                self.value(path[1:] if path and path[0] == key else None, found)
                self.ws()
                if self.text[self.i] == ",":
                    self.i += 1
                    continue
                self.i += 1  # '}'
                return
        if char == "[":
            self.i += 1
            self.ws()
            if self.text[self.i] == "]":
                self.i += 1
                return
            index = 0
            while True:
                self.value(path[1:] if path and str(path[0]) == str(index) else None, found)
                index += 1
                self.ws()
                if self.text[self.i] == ",":
                    self.i += 1
                    continue
                self.i += 1
                return
        if char == '"':
            self.string()
            return
        while self.i < len(self.text) and self.text[self.i] not in ",]}" + _WS:
            self.i += 1


def _unpointer(pointer):
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]


def _key_offset(text, pointer):
    scan, found = _Scan(text), []
    try:
        scan.value(_unpointer(pointer), found)
    except StopIteration:
        pass
    except (IndexError, ValueError):
        return None
    return found[0] if found else None


def parse_raw(text):
    try:
        return _parse_raw(text)
    except cp.Refusal as refusal:
        if refusal.details.get("reason") == "duplicate_key":
            at = _key_offset(text, refusal.details["path"])
            if at is not None:
                # VARIANT: the repeated key's position beside its path.
                refusal.details.update(cp._position(text, at))
        raise


cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
