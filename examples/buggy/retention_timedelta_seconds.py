"""Bug: settled records expire lazily at deadline + RETENTION_MS, with RETENTION_MS = timedelta(days=7).seconds * 1000,
which is 0 (`.seconds` is the seconds component, not total_seconds()): a retry after the first attempt's deadline
finds no record and executes again."""
from datetime import timedelta

from correct import changed_copy
from correct import cp, serve

cp.RETENTION_MS = timedelta(days=7).seconds * 1000  # the bug: 0, not 604 800 000

changed_copy(cp.Executor, "claim",
             "                record = self.records.get(key)\n                if record is None:\n",
             "                record = self.records.get(key)\n"
             "                if (record is not None and record.state in ('SUCCEEDED', 'FAILED_FINAL', 'FAILED_RETRYABLE')\n"
             "                        and record.deadline + RETENTION_MS < now_ms()):\n"
             "                    del self.records[key]  # past retention\n"
             "                    record = None\n"
             "                if record is None:\n")

if __name__ == "__main__":
    serve(__file__)
