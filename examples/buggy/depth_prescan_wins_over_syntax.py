"""Bug: a depth pre-scan refuses nesting deeper than 64 before the parser runs, so a syntax error earlier in the
text is answered too_deep (protocol.md: within this stage the problem that comes first in the text wins)."""
from correct import changed_copy
from correct import cp, serve

changed_copy(cp, "parse_raw",
             "    deep_at = _too_deep_offset(text)\n",
             "    deep_at = _too_deep_offset(text)\n    if deep_at is not None:  # cheap guard before parsing\n"
             "        raise _too_deep(text, deep_at)\n")

if __name__ == "__main__":
    serve(__file__)
