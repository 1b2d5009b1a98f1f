"""Correct variant: an execute line whose `attempt` is not an integer >= 1, or whose `id` is still in flight, is
refused with an `error` line naming the request (the session goes on), as the reference binary does.

Doc: protocol.md (the reference implementation) "Refused messages (an `error` line naming the request, and the
session goes on): a line that is not a message, `attempt` 0 (attempts count from 1), a request `id` that is still in
flight." Expected: passes under --profile all (the harness never sends either).
"""
import inspect
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from correct import cp, serve  # noqa: E402

PIECES = (
    ('        wire.send({"type": "result", "id": message["id"], "envelope": envelope})\n',
     '        OPEN_IDS.discard(message["id"])\n'
     '        wire.send({"type": "result", "id": message["id"], "envelope": envelope})\n'),
    ('            pool.submit(serve, message, received)\n',
     '            attempt = message.get("attempt")\n'
     '            if not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 1:\n'
     '                wire.send({"type": "error", "id": message.get("id"),\n'
     '                           "message": "cannot accept the message: attempt must be an integer from 1"})\n'
     '                continue\n'
     '            if message.get("id") in OPEN_IDS:\n'
     '                wire.send({"type": "error", "id": message.get("id"),\n'
     '                           "message": "cannot accept the message: this request id is still in flight"})\n'
     '                continue\n'
     '            OPEN_IDS.add(message.get("id"))\n'
     '            pool.submit(serve, message, received)\n'),
)

cp.OPEN_IDS = set()
source = inspect.getsource(cp.main)
for old, new in PIECES:
    assert source.count(old) == 1, old
    source = source.replace(old, new)
namespace = {}
exec(compile(textwrap.dedent(source), cp.__file__, "exec"), cp.__dict__, namespace)
cp.main = namespace["main"]

if __name__ == "__main__":
    serve(__file__)
