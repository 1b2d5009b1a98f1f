"""Bug: the size limit is inclusive: a text of exactly 1 MiB is refused as too large.

A wrapper of `parse_raw` that checks the size first with `>=` ("at the limit is already too much"), so an
argument text of exactly 1 048 576 UTF-8 bytes is invalid_arguments (too_large) although it is within the limit.

Doc sentence broken: docs/errors.md invalid_arguments "the raw text is larger than the limit (default 1 MiB)";
docs/protocol.md "size (1 MiB of raw text)"; docs/conformance-app.md "Run with the default limits ...: 1 MiB of
argument text".

Where it ships: request-size guards everywhere (`if len(body) >= MAX_BODY`), body-limit middlewares configured
with the limit as the first refused size.

Written blind in round 8 (examples/buggy/BLIND8.md).
"""

from correct import cp, serve

original_parse_raw = cp.parse_raw


def parse_raw(text):
    size = cp.utf8_size(text)
    if size >= cp.MAX_ARGUMENT_BYTES:  # BUG: >= where the limit itself is allowed
        raise cp.Refusal("invalid_arguments", "tool arguments are too large", reason="too_large",
                         limit_bytes=cp.MAX_ARGUMENT_BYTES, size_bytes=size)
    return original_parse_raw(text)


cp.parse_raw = parse_raw

if __name__ == "__main__":
    serve(__file__)
