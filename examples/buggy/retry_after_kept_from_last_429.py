"""Bug: the executor remembers the last Retry-After it saw and uses it for a later 429 that carries none.

The default of 1000 ms applies only until the first 429 with a Retry-After; after it, every 429 without one is
answered with that earlier hint. Ships in HTTP client wrappers that keep `self.retry_after` (a backoff hint) on the
shared client object. Breaks docs/errors.md rate_limited: "`retry_after_ms`, from the downstream's `Retry-After` or
a default of 1000 ms".
"""

from correct import changed_copy, cp, serve

changed_copy(cp.Executor, "call_tool",
             """                wait_ms = min(int(headers.get("retry-after", "").strip()), MAX_RETRY_AFTER_S) * 1000
            except ValueError:
                wait_ms = 1000
""",
             """                wait_ms = min(int(headers.get("retry-after", "").strip()), MAX_RETRY_AFTER_S) * 1000
                self.last_retry_after_ms = wait_ms
            except ValueError:
                wait_ms = getattr(self, "last_retry_after_ms", 1000)
""")

if __name__ == "__main__":
    serve(__file__)
