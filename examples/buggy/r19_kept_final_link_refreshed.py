"""Blind round 19: a poll answered from the kept final answer swaps in a freshly signed download link.

The change: the executor keeps a task's first final answer, as asked, but "signed links expire": when a later poll
is answered from the kept answer, it reads the job again and replaces the kept result's `download_url` with the
fresh one the export service just signed, keeping everything else. Where it ships: task/export tools that hand out
pre-signed S3/GCS URLs and refresh them on read so the model never gets an expired link.

Doc sentence it breaks: docs/conformance-app.md (Tasks): "an executor keeps the first final answer (validated
before it is kept) and answers it to every later poll of that handle"; docs/checks.md `task-final-stable`: "every
later poll of the same handle by the same tenant answers the same thing, result included".
"""

from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "run_decoded",
             "            if kept is not None:\n"
             "                return succeed(kept, meta)",
             "            if kept is not None:\n"
             "                if isinstance(kept.get(\"result\"), dict) and kept[\"result\"].get(\"download_url\"):\n"
             "                    _, fresh = self.call_tool(tool, arguments, ctx, None)\n"
             "                    if isinstance(fresh, dict) and isinstance(fresh.get(\"result\"), dict) and \\\n"
             "                            fresh[\"result\"].get(\"download_url\"):\n"
             "                        kept = dict(kept, result=dict(kept[\"result\"],\n"
             "                                                      download_url=fresh[\"result\"][\"download_url\"]))\n"
             "                return succeed(kept, meta)")

if __name__ == "__main__":
    serve(__file__)
