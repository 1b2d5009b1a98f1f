"""Buggy executor: only a task poll's final answer is validated against the output schema.

Changed place: `Executor.run_decoded`, the output validation (examples/python/callproof_executor.py). A task poll
(`task: poll`) whose answer is not final (`working`) is passed on without validation; docs/conformance-app.md says
the first final answer is "validated once", which this reads as "validate the final answer only".
Where teams ship it: task pollers that validate what they keep and pass through progress answers as they come.
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "run_decoded",
             '''        if not isinstance(result, Refusal):''',
             '''        if not isinstance(result, Refusal) and (final_key is None or (isinstance(result, dict) and result.get(
                "status") in FINAL_TASK_STATUSES)):  # BUG: a working poll is passed through unvalidated''')

if __name__ == "__main__":
    serve(__file__)
