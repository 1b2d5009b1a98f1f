"""Bug: a `202 Accepted` is read as "not applied yet": the call answers operation_in_progress and records a
retryable failure, so a retry of the submission sends `POST /exports` again.

Ships in: HTTP wrappers that count only 200/201 as done and treat 202 as "pending, poll later".
Breaks: docs/conformance-app.md, "2xx with a JSON body | applied | the body, projected onto the output schema's
properties and validated", and Tasks: "A retry ... replays the same handle and starts no second job".
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "call_tool",
             "        if 200 <= status < 300:\n",
             "        if status == 202:\n"
             "            return \"FAILED_RETRYABLE\", in_progress(1000)\n"
             "        if 200 <= status < 300:\n")

if __name__ == "__main__":
    serve(__file__)
