"""Bug: meta.attempt is the executor's own count of executions of the business operation, not the caller's attempt."""
from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "claim",
             "            stored_fingerprint, state, epoch, attempts, record_lease, record_deadline, outcome = snapshot\n",
             "            stored_fingerprint, state, epoch, attempts, record_lease, record_deadline, outcome = snapshot\n"
             "            meta[\"attempt\"] = attempts + (1 if state == \"FAILED_RETRYABLE\" else 0)\n")

if __name__ == "__main__":
    serve(__file__)
