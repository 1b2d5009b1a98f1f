#!/usr/bin/env python3
"""Correct, written another way: for a tool with side effects, the operation's `Idempotency-Key` goes on every
request the call makes, the resource lookup (`GET /orders/{id}`, `GET /accounts/{id}`) included, not only on
the side-effecting request and the status query.

Where it ships: HTTP clients configured per operation (one client object carrying the operation's headers for
every request it makes), and idempotency middleware that stamps the key on the whole exchange.

Permitted by docs/protocol.md's header table: "`Idempotency-Key` | the business operation's key, on
side-effecting requests and status queries" says where it must be, and that the value is the operation's key;
on a GET it changes nothing (the mocked downstream honours keys only on side effects; docs/conformance-app.md:
"By default it does **not** honour `Idempotency-Key`"). The value is the same key as everywhere else in the
operation.

Expected: passes every check under --profile all. A false-positive probe for checks that classify requests by
the presence of the header (same-key, reconcile-before-resend's status queries, rejection-has-no-effect).
Judgement call: a reader could take the table as an exhaustive list; see the report.
"""

from correct import cp, serve

ORIGINAL_LOOKUP = cp.Executor.lookup_resource
ORIGINAL_SEND = cp.Downstream.send


def lookup_resource(self, tool, arguments, ctx):
    if tool.side_effect:
        ctx.lookup_key = cp.derive_key(ctx.auth, tool.name, cp.canonical(arguments), ctx.business_request_id)
    try:
        return ORIGINAL_LOOKUP(self, tool, arguments, ctx)
    finally:
        ctx.lookup_key = None


def send(self, template, arguments, ctx, key=None):
    return ORIGINAL_SEND(self, template, arguments, ctx, key if key is not None else getattr(ctx, "lookup_key", None))


ORIGINAL_RUN_DECODED = cp.Executor.run_decoded


def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx, meta):
    ctx.business_request_id = business_request_id
    return ORIGINAL_RUN_DECODED(self, tool, arguments, canonical_arguments, arguments_hash, auth,
                                business_request_id, ctx, meta)


cp.Executor.lookup_resource = lookup_resource
cp.Executor.run_decoded = run_decoded
cp.Downstream.send = send

if __name__ == "__main__":
    serve(__file__)
