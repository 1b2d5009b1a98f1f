"""Bug: on idempotency_conflict the record's stored fingerprint is replaced by the new arguments' (an upsert).

The refused call's arguments become the business request's: a retry with the original arguments is then refused as
a conflict, and a retry with the changed ones is answered the first call's outcome. Ships as idempotency tables
written with `INSERT ... ON CONFLICT DO UPDATE SET fingerprint = excluded.fingerprint` (Django update_or_create).
Breaks docs/errors.md idempotency_conflict: "Nothing is executed; the stored record is left as it was."
"""

from correct import changed_copy, cp, serve

changed_copy(cp.Executor, "claim",
             """            if stored_fingerprint != fingerprint:
""",
             """            if stored_fingerprint != fingerprint:
                with self.lock:
                    record.fingerprint = fingerprint  # upsert: the latest call's arguments are stored
""")

if __name__ == "__main__":
    serve(__file__)
