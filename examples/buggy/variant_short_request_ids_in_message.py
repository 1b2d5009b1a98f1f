#!/usr/bin/env python3
"""Written another way: `variant_request_id_in_message` (every error message ends with its envelope's request
id, a variant the manifest declares correct) with short request ids: a per-process counter, "1", "2", "3", ...
instead of "req_<12 hex><6 hex>".

Where it ships: executors that number their executions (a database sequence, an in-memory counter).

Permitted by docs/envelope.schema.json: `request_id` is `{"type": "string", "minLength": 1}`, "The executor's id
for this execution"; the message is free text (docs/errors.md: "Only `message` and `details` vary from call to
call"); and `variant_request_id_in_message`'s row in manifest.toml: "a per-call id in messages must not trip
checks that compare refusals".

Expected: passes every check under --profile all (short ids that stand alone are blanked since 2026-12-03;
before, resource-refusal-uniform and task-refusal-uniform blanked only ids of 4 characters or more).
"""

import variant_request_id_in_message  # noqa: E402,F401  (installs the message suffix into the example)
from correct import cp, serve


def next_request_id(self):
    with self.lock:
        self.counter += 1
        return str(self.counter)


cp.Executor.next_request_id = next_request_id

if __name__ == "__main__":
    serve(__file__)
