"""Bug: the downstream body limit is raised to 64 MiB ("1 MiB is too small for some services"), so a success
whose body is past 1 MiB is read whole and answered ok instead of as an answer that never arrived whole.

Doc sentence broken: docs/errors.md `timeout_unknown`: a success "with a body that never arrived whole (over
1 MiB, or the connection broke before its end)" is `timeout_unknown`.

Where it ships: HTTP clients whose response limit is configured once, generously, or left unbounded (httpx's
`aread()`, `res.json()` in fetch), as blind round 11's Python-with-libraries author wrote it
(`response_body_unbounded`, BLIND11.md); this module makes the same mistake in the Python example.
"""

from correct import cp, serve

cp.MAX_RESPONSE_BYTES = 64 * 1024 * 1024  # BUG(response_body_limit_raised)

if __name__ == "__main__":
    serve(__file__)
