"""The correct Python example executor, which every buggy executor of this folder changes in one place.

A buggy executor imports `cp` (examples/python/callproof_executor.py as a module), replaces one function or
method of it with a copy that has the bug (or wraps it), and calls `serve(__file__)`: the example's own protocol
loop, announcing itself as `callproof-buggy-<module>` in its capabilities. `changed_copy` makes such a copy from
the example's own source with one piece replaced (blind round 12), so the module shows only the change.
"""

import inspect
import os
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))

import callproof_executor as cp  # noqa: E402  (the path above makes it importable)


def serve(path):
    """Runs the (now buggy) example over callproof/1 on stdin/stdout until stdin closes."""
    cp.NAME = "callproof-buggy-" + os.path.splitext(os.path.basename(path))[0].replace("_", "-")
    sys.exit(cp.main())


def changed_copy(owner, name, old, new, count=1):
    """Replaces `owner.name` (a function or method of the example) with a copy of its source in which `old`, found
    exactly `count` times (as indented in the file), is replaced by `new`; compiled in the example's globals. A
    change in several places passes `old` and `new` as tuples of the same length, each piece found `count` times."""
    source = inspect.getsource(getattr(owner, name))
    olds, news = ((old,), (new,)) if isinstance(old, str) else (tuple(old), tuple(new))
    assert len(olds) == len(news), (name, len(olds), len(news))
    for piece, replacement in zip(olds, news):
        assert source.count(piece) == count, (name, piece, source.count(piece))
        source = source.replace(piece, replacement)
    namespace = {}
    exec(compile(textwrap.dedent(source), cp.__file__, "exec"), cp.__dict__, namespace)
    setattr(owner, name, namespace[name])
