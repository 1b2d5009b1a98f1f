"""Blind round 19: a replay marks the stored result itself as replayed.

The change: so that the model, which reads `result` and rarely `meta`, sees that nothing new happened, a replay
writes `"replayed": true` into the stored result object (in place: the record's own dict, so every later replay
and the record carry it too). Where it ships: executors that surface idempotency to the model inside the tool
output ("note: this refund was already made") instead of in metadata.

Doc sentence it breaks: docs/conformance-app.md, a 2xx answer's result is "the body, projected onto the output
schema's properties"; docs/checks.md `result-matches-downstream`: "at the top level, the result holds exactly the
members of the body that the output schema declares, no more and no fewer"; docs/envelope.schema.json puts the flag
in `meta.replayed`.
"""

from correct import cp, changed_copy, serve

changed_copy(cp, "replay",
             'answer["result" if stored["ok"] else "error"] = stored["result" if stored["ok"] else "error"]',
             'answer["result" if stored["ok"] else "error"] = stored["result" if stored["ok"] else "error"]\n'
             '    if stored["ok"] and isinstance(stored["result"], dict):\n'
             '        stored["result"]["replayed"] = True')

if __name__ == "__main__":
    serve(__file__)
