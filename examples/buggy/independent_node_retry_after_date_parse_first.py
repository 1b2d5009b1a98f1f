"""Independent Node executor with one bug: Retry-After tried as an HTTP-date first, with V8's lenient Date.parse.

Bug: RFC 9110 allows `Retry-After` as delay-seconds or as an HTTP-date; this reading tries the date first and falls
back to seconds only when `Date.parse` fails. V8's Date.parse is lenient: `Date.parse('7')` is 2001-07-01 and
`Date.parse('120')` is the year 120, so a plain number of seconds parses as a date in the past and
`retry_after_ms` becomes 0 ("retry at once") instead of seconds × 1000. The no-header default (1000) is unchanged.

Where it ships: JavaScript retry helpers that accept both forms of Retry-After and test the date form first.

Doc sentence: docs/protocol.md, HTTP contract table: "429, `Retry-After: s` | not applied | `rate_limited`,
`details.retry_after_ms = s × 1000` (default 1000)"; docs/errors.md rate_limited: "`retry_after_ms`, from the
downstream's `Retry-After` or a default of 1000 ms".
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = """function retryAfterMs(h) {
  const v = h['retry-after'];
  if (typeof v === 'string' && /^\\s*\\d+\\s*$/.test(v)) return parseInt(v, 10) * 1000;
  if (typeof v === 'string' && /^\\s*\\d+(\\.\\d+)?\\s*$/.test(v)) return Math.round(parseFloat(v) * 1000);
  return 1000;
}"""
NEW = """function retryAfterMs(h) {
  const v = h['retry-after'];
  if (typeof v !== 'string' || v.trim() === '') return 1000;
  const when = Date.parse(v); // HTTP-date form (RFC 9110 section 10.2.3)
  if (!Number.isNaN(when)) return Math.max(0, when - Date.now());
  const s = Number(v); // delay-seconds form
  return Number.isFinite(s) && s >= 0 ? Math.round(s * 1000) : 1000;
}"""

if __name__ == "__main__":
    patch.exec_node(__file__, "executor.mjs", OLD, NEW)
