"""The correct Python example executor, which every buggy executor of this folder changes in one place.

A buggy executor imports `cp` (examples/python/callproof_executor.py as a module), replaces one function or
method of it with a copy that has the bug (or wraps it), and calls `serve(__file__)`: the example's own protocol
loop, announcing itself as `callproof-buggy-<module>` in its capabilities.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))

import callproof_executor as cp  # noqa: E402  (the path above makes it importable)


def serve(path):
    """Runs the (now buggy) example over callproof/1 on stdin/stdout until stdin closes."""
    cp.NAME = "callproof-buggy-" + os.path.splitext(os.path.basename(path))[0].replace("_", "-")
    sys.exit(cp.main())
