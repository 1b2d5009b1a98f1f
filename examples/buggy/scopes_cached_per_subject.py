"""Bug: the caller's scopes are memoised per subject_id in a module-level dict (a "permission cache")."""
from correct import cp, changed_copy, serve

cp._SCOPE_CACHE = {}
changed_copy(cp.Executor, "check_caller",
             'if scope not in auth.get("scopes", [])]',
             'if scope not in _SCOPE_CACHE.setdefault(auth["subject_id"], auth.get("scopes", []))]')

if __name__ == "__main__":
    serve(__file__)
