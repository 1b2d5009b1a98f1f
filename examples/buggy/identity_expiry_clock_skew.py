"""Bug: identity expiry is checked with a 5-minute clock-skew allowance (ASP.NET ClockSkew / PyJWT leeway)."""
from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "check_caller",
             'identity["expires_at_ms"] <= now_ms()',
             'identity["expires_at_ms"] + 300_000 <= now_ms()')

if __name__ == "__main__":
    serve(__file__)
