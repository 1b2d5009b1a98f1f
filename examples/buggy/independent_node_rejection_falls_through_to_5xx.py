"""Independent Node executor with one bug: a status-class switch whose 4xx case falls through into 5xx.

Bug: the tool's answer is classified with `switch (Math.floor(st / 100))`; `case 4:` sets the outcome (429 →
rate_limited, other 4xx → business_rejected) but has no `break`, so execution falls through into `case 5:`, which
overwrites it with dependency_unavailable (retryable, recorded FAILED_RETRYABLE). Every 4xx refusal (404, 409,
422) and every 429 is then answered as a retryable outage that applied nothing, and a retry of a refused
business request sends it again instead of replaying the refusal.

Where it ships: a missing `break` in a switch (JavaScript, like C, falls through by default; eslint's
no-fallthrough exists for it).

Doc sentences: docs/protocol.md, HTTP contract: "404, 409, 422 ... refused for good | `business_rejected`" and
"429, `Retry-After: s` | not applied | `rate_limited`"; docs/errors.md business_rejected: "The rejection is stored
for its business request".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = """  if (st === 429) return { error: err('rate_limited', { retry_after_ms: retryAfterMs(resp.headers), downstream_status: 429 }), state: 'FAILED_RETRYABLE' };
  if (st >= 500) return { error: err('dependency_unavailable', { reason: 'unavailable', downstream_status: st }), state: 'FAILED_RETRYABLE' };
  if (st >= 400) return { error: rejection(tool, resp), state: 'FAILED_FINAL' };
"""
NEW = """  let out = null;
  switch (Math.floor(st / 100)) {
    case 4:
      out = st === 429
        ? { error: err('rate_limited', { retry_after_ms: retryAfterMs(resp.headers), downstream_status: 429 }), state: 'FAILED_RETRYABLE' }
        : { error: rejection(tool, resp), state: 'FAILED_FINAL' };
    case 5:
      out = { error: err('dependency_unavailable', { reason: 'unavailable', downstream_status: st }), state: 'FAILED_RETRYABLE' };
      break;
    default:
      break;
  }
  if (out) return out;
"""

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
