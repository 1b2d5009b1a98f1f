"""Correct variant of the independent Node executor: a kept final poll answer is answered without reading the job.

What it does differently: the unchanged executor reads the job (`GET /exports/{task_id}`, which is also the
ownership lookup) on every poll and then answers the kept final answer if there is one. This variant keeps the
first final answer together with the tenant and owner the authorizing read returned (keyed by the handle), and a
later poll that finds it authorizes against them (same tenant; the owner, or a support_admin of that tenant;
otherwise the same `forbidden`/`resource_not_accessible` answer an unknown handle gets) and answers it without
reading the job again. Scopes, allowed tools and identity are checked first, as before.

Where it ships: cache-aside reads of a stored task result (the result row carries its owner; the ACL check runs
on the row, the origin is not asked again).

Docs relied on:
- docs/protocol.md, Crash faults: "A kept final task answer is answered from your store; whether a poll also reads
  the job again is your choice."
- docs/protocol.md, Task tools: "the first final poll answer of a handle is kept and answered to every later poll
  (durable stores keep it across a restart)."
- docs/conformance-app.md, Tasks: "Its resource is the job: `GET /exports/{task_id}` answers `tenant_id` and
  `owner_id` like any other resource, so an unknown handle and another tenant's handle get the same `forbidden`
  answer."
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))

from patch import exec_node  # noqa: E402

exec_node(
    __file__, "executor.mjs",
    (
        """  // resource lookup
""",
        """    if (tool.task === 'poll') return pollAnswer(tool, auth, plain, r, fail, okEnv);""",
        """function pollAnswer(tool, auth, plain, r, fail, okEnv) {
  const tkey = `${auth.tenant_id}\\u0000${plain.task_id}`;
  const kept = store.getTask(tkey);
  if (kept) return okEnv(kept);
  if (r.error) return fail(r.error);
  if (r.result && FINAL.has(r.result.status)) store.putTask(tkey, r.result);
  return okEnv(r.result);
}""",
    ),
    (
        """  // a kept final answer: authorized against the owner kept with it, answered without reading the job
  if (tool.task === 'poll' && typeof plain.task_id === 'string') {
    const kept = store.getTask(`kept\\u0000${plain.task_id}`);
    if (kept) {
      const roles = Array.isArray(auth.roles) ? auth.roles : [];
      const sameTenant = kept.tenant_id === auth.tenant_id;
      const owner = kept.owner_id === auth.subject_id || roles.includes('support_admin');
      if (!(sameTenant && owner)) return fail(err('forbidden', { reason: 'resource_not_accessible' }));
      return okEnv(kept.result);
    }
  }

  // resource lookup
""",
        """    if (tool.task === 'poll') return pollAnswer(tool, auth, plain, r, fail, okEnv, resource);""",
        """function pollAnswer(tool, auth, plain, r, fail, okEnv, resource) {
  const tkey = `kept\\u0000${plain.task_id}`;
  const kept = store.getTask(tkey);
  if (kept) return okEnv(kept.result);
  if (r.error) return fail(r.error);
  if (r.result && FINAL.has(r.result.status) && resource) {
    store.putTask(tkey, { result: r.result, tenant_id: resource.tenant_id, owner_id: resource.owner_id });
  }
  return okEnv(r.result);
}""",
    ),
)
