"""Bug: only successes are kept. A final failure (a rule or downstream rejection,
output_invalid, a reconciled rejection, retry_budget_exhausted) drops the idempotency record instead of storing it,
"so that the client can simply retry a failed request".

Written blind in round 10 (examples/buggy/BLIND10.md).
"""
from correct import cp, serve


def compare_and_set(self, key, version, state, outcome, **changes):
    with self.lock:
        record = self.records.get(key)
        if record is None or record.version() != version:
            return False
        if state == "FAILED_FINAL":  # BUG(final_failures_forgotten): a final failure is forgotten, not recorded
            del self.records[key]
            return True
        record.state, record.outcome = state, outcome
        for name, value in changes.items():
            setattr(record, name, value)
        return True


cp.Executor.compare_and_set = compare_and_set

if __name__ == "__main__":
    serve(__file__)
