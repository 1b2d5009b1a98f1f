#!/usr/bin/env python3
"""Bug: incoming `execute` messages are validated strictly, pydantic `extra="forbid"` style: a member the
executor does not know, at any level (the message, `call`, `call.arguments`, `auth`, `auth.identity`,
`auth.approval`), is refused with an `error` line ("extra fields not permitted") instead of being ignored.

The member sets are exactly the ones docs/protocol/execute.schema.json lists (which say `additionalProperties:
false`), so the author could point at the published schema; but a later `callproof/1.x` that adds an optional
member would find every call of this executor refused (a protocol break).

Ships: protocol models declared with pydantic `ConfigDict(extra="forbid")`, or messages validated against the
published JSON Schemas as they stand.

Doc sentence: docs/protocol.md, Transport: "Receivers ignore members they do not know (a later `callproof/1.x`
may add optional ones)."
"""
import correct
from correct import cp

_KNOWN = {
    (): {"type", "id", "call", "auth", "business_request_id", "attempt", "budget_ms"},
    ("call",): {"call_id", "name", "arguments"},
    ("call", "arguments"): {"raw", "value"},
    ("auth",): {"subject_id", "tenant_id", "scopes", "roles", "identity", "allowed_tools", "approval"},
    ("auth", "identity"): {"valid", "expires_at_ms"},
    ("auth", "approval"): {"approval_id", "subject_id", "tenant_id", "tool", "arguments_hash", "risk",
                           "expires_at_ms"},
}


def _forbid_extra(message):
    for path, known in _KNOWN.items():
        node = message
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            extra = sorted(set(node) - known)
            if extra:
                raise ValueError("%s: extra fields not permitted: %s" % (".".join(path) or "execute",
                                                                        ", ".join(extra)))


cp._forbid_extra = _forbid_extra
correct.changed_copy(cp, "main", '''                if message.get("type") != "execute":
                    raise ValueError("unexpected message type %r" % message.get("type"))
''', '''                if message.get("type") != "execute":
                    raise ValueError("unexpected message type %r" % message.get("type"))
                _forbid_extra(message)
''')

if __name__ == "__main__":
    correct.serve(__file__)
