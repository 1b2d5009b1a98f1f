"""Runs the Node executor with one change, for the buggy `node_*` modules of examples/buggy.

Each of those modules names a piece of `callproof_executor.mjs` and the text that replaces it; `exec_node` writes
the changed executor to the temp folder (one file per distinct text, written whole before it is renamed into
place, so concurrent runs share it) and replaces the Python process with `node` on it, as the `variant_node_*`
modules do with the unchanged executor.

Rule enforced here: the piece occurs exactly once in the executor, or the module refuses to start (exit 2,
saying so on stderr). An edit of the executor that moves or rewrites the piece then fails the manifest row loudly,
instead of running the correct executor under a buggy name.
"""

import hashlib
import os
import sys
import tempfile

EXECUTOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "callproof_executor.mjs")


def changed_executor(name, old, new):
    """The executor's source with `old` replaced by `new`, or exit 2 when `old` is not there exactly once."""
    with open(EXECUTOR, encoding="utf-8") as source_file:
        source = source_file.read()
    found = source.count(old)
    if found != 1 or old == new:
        sys.stderr.write(
            f"{name}: the piece of {EXECUTOR} it changes occurs {found} times, not once "
            "(or the change changes nothing); update the module to the executor\n"
        )
        sys.exit(2)
    return source.replace(old, new, 1)


def exec_node(module_file, old, new, http="http"):
    """Replaces this process with `node` running the executor changed in one place."""
    name = os.path.splitext(os.path.basename(module_file))[0]
    source = changed_executor(name, old, new)
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"callproof-{name}-{digest}.mjs")
    if not os.path.exists(path):
        partial = f"{path}.{os.getpid()}.partial"
        with open(partial, "w", encoding="utf-8") as out:
            out.write(source)
        os.replace(partial, path)
    os.environ["CALLPROOF_NODE_HTTP"] = http
    os.environ["CALLPROOF_NODE_NAME"] = "callproof-buggy-" + name
    sys.stdout.flush()
    os.execvp("node", ["node", path])
