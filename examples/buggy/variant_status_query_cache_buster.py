#!/usr/bin/env python3
"""Correct, written another way: every status query carries one more query parameter, a cache-buster
(`&_=<unix ms>`), after the template's `idempotency_key`.

Where it ships: clients behind caching proxies or CDNs (jQuery's `cache: false`, many hand-written pollers)
add a changing parameter to every poll so that no cache answers it.

Permitted by docs/protocol.md? "Requests are the catalog's `downstream` templates" and, for the status
query, "asks the tool's `downstream.status` query (`GET /refunds?idempotency_key=K`)": the docs neither allow
nor forbid parameters beyond the template's. A judgement call, probed here.

Expected: passes every check under --profile all.
"""

from correct import cp, serve

ORIGINAL_EXPAND = cp.expand


def expand(template, arguments, key):
    method, target = ORIGINAL_EXPAND(template, arguments, key)
    if "idempotency_key=" in template:
        target += "&_=%d" % cp.now_ms()
    return method, target


cp.expand = expand

if __name__ == "__main__":
    serve(__file__)
