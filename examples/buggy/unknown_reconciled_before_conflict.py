"""Bug: for a record in UNKNOWN the claim reconciles before it compares the arguments' fingerprint, so a retry with
changed arguments gets the old operation's reconciled answer (or a status query) instead of idempotency_conflict."""
from correct import changed_copy
from correct import cp, serve

changed_copy(cp.Executor, "claim",
             "            if stored_fingerprint != fingerprint:\n",
             "            if state == \"UNKNOWN\":  # resolve the unknown first\n"
             "                answer = self.reconcile(key, (state, epoch), record_deadline, outcome, tool, arguments, ctx,\n"
             "                                        meta)\n"
             "                if answer is not None:\n"
             "                    return answer\n"
             "                continue\n"
             "            if stored_fingerprint != fingerprint:\n")

if __name__ == "__main__":
    serve(__file__)
