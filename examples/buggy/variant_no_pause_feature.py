"""Correct variant: capabilities declare no optional feature (no `pause`), as an executor run behind a wrapper
that SIGSTOP would not reach must; pause scenarios are then skipped.

Doc: protocol.md "`features`, each optional" and "`pause` | the process the harness starts is your executor ...
Scenarios with a `pause` fault stop it and resume it; without it they are skipped." Expected: passes.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from correct import changed_copy, cp, serve  # noqa: E402

changed_copy(cp, "main", '"features": ["pause"]', '"features": []')

if __name__ == "__main__":
    serve(__file__)
