"""Bug: the wall clock is read once when the module loads, and every later "now" is that instant.

Identity and approval expiry, leases and "the earlier attempt's deadline" are all compared with the process start
time. Ships as a module-level `NOW = int(time.time() * 1000)` used where a call was meant (or a frozen test clock
left in place). Breaks docs/protocol.md "an identity or an approval whose `expires_at_ms` is at or before now has
expired" and Reconciliation "404 ... before the earlier attempt's deadline ...; after it: send again".
"""

from correct import cp, serve

_NOW = cp.now_ms()
cp.now_ms = lambda: _NOW  # read once

if __name__ == "__main__":
    serve(__file__)
