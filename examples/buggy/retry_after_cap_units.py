"""Bug: the Retry-After cap (MAX_RETRY_AFTER_S, seconds) is applied after the value was turned into ms.

`min(int(s) * 1000, MAX_RETRY_AFTER_S)`: any Retry-After above 3 s is answered as 3600 ms.
"""
from correct import changed_copy
from correct import cp, serve

changed_copy(cp.Executor, "call_tool",
             'wait_ms = min(int(headers.get("retry-after", "").strip()), MAX_RETRY_AFTER_S) * 1000',
             'wait_ms = min(int(headers.get("retry-after", "").strip()) * 1000, MAX_RETRY_AFTER_S)')

if __name__ == "__main__":
    serve(__file__)
