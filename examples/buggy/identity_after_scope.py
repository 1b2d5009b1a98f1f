#!/usr/bin/env python3
"""Bug: the scopes are checked before the identity, so an expired caller without the scope is told `forbidden`
(`missing_scope`) instead of `unauthorized`.

Where it ships: a permission decorator on each tool (`@requires_scope("refunds:write")`) that runs before the
middleware that validates the session, or a policy engine asked first "may this principal do this?". The caller
is told to stop (`resolution: stop`) when it should reauthenticate, and learns which scopes a tool needs without
being anyone. docs/errors.md, unauthorized: "Checked before anything else about authorization"; docs/protocol.md:
identity valid and unexpired, then tool allowed, then scopes.

Expected checks: expectations (auth/identity_invalid_or_expired: an expired identity without the tool's scope).
"""

from correct import cp, serve

_check_caller = cp.Executor.check_caller


def check_caller(self, tool, arguments_hash, auth):
    # BUG: the tool's scopes first, the identity after.
    missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in auth.get("scopes", [])]
    if missing:
        raise cp.Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                         required_scopes=missing)
    _check_caller(self, tool, arguments_hash, auth)


cp.Executor.check_caller = check_caller

if __name__ == "__main__":
    serve(__file__)
