#!/usr/bin/env python3
"""A callproof/1 executor for the conformance app, written from the docs alone (blind round 8, "fresh")."""
import asyncio
import hashlib
import json
import math
import os
import sys
import tempfile
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import schema as sch  # noqa: E402
from strictjson import DecodeError, parse as strict_parse  # noqa: E402

PROTOCOL = "callproof/1"
MAX_ARG_BYTES = 1024 * 1024
MAX_DEPTH = 64
MAX_EXECUTIONS = 5
MAX_BODY = 1024 * 1024
LEASE_EXTRA_MS = 2000

CODE_TABLE = {
    "invalid_json": ("input", False, "repair_arguments", False),
    "invalid_arguments": ("input", False, "repair_arguments", False),
    "schema_violation": ("input", False, "repair_arguments", False),
    "tool_not_found": ("protocol", False, "refresh_tools", False),
    "unauthorized": ("authorization", False, "reauthenticate", True),
    "forbidden": ("authorization", False, "stop", True),
    "approval_required": ("authorization", False, "ask_user", True),
    "business_rejected": ("business", False, "ask_user", True),
    "idempotency_conflict": ("idempotency", False, "stop", False),
    "operation_in_progress": ("idempotency", True, "poll", True),
    "dependency_unavailable": ("dependency", True, "retry_same_key", True),
    "rate_limited": ("dependency", True, "retry_after", True),
    "timeout_not_started": ("timeout", True, "retry_same_key", True),
    "timeout_unknown": ("timeout", False, "reconcile", True),
    "output_invalid": ("contract", False, "inspect", False),
    "internal_error": ("internal", False, "inspect", False),
    "retry_budget_exhausted": ("idempotency", False, "stop", True),
}

MESSAGES = {
    "invalid_json": "The argument text is not valid JSON.",
    "invalid_arguments": "The arguments break a structural rule.",
    "schema_violation": "The arguments do not match the tool's input schema.",
    "tool_not_found": "No tool has this name.",
    "unauthorized": "The caller's identity is not valid.",
    "forbidden": "The caller may not do this.",
    "approval_required": "This operation needs the user's approval of these exact arguments.",
    "business_rejected": "The request was refused by a business rule.",
    "idempotency_conflict": "This business request was already made with other arguments.",
    "operation_in_progress": "This operation is still in progress; ask again later.",
    "dependency_unavailable": "A service the tool needs could not be used; nothing was applied.",
    "rate_limited": "The service is busy; nothing was applied. Retry later.",
    "timeout_not_started": "The time budget ran out before the operation started.",
    "timeout_unknown": "The outcome of the operation is unknown; it will be reconciled on retry.",
    "output_invalid": "The tool's result could not be validated and is withheld.",
    "internal_error": "The executor failed internally.",
    "retry_budget_exhausted": "This operation failed too many times; stop retrying.",
}

RETRYABLE_STATE_CODES = {"dependency_unavailable", "rate_limited", "timeout_not_started"}
UNKNOWN_STATE_CODES = {"timeout_unknown"}


def now_ms():
    return time.time() * 1000.0


def log(*a):
    print(*a, file=sys.stderr, flush=True)


class CallError(Exception):
    def __init__(self, code, details=None):
        super().__init__(code)
        self.code = code
        self.details = details or {}


def error_obj(code, details):
    cat, retry, res, user = CODE_TABLE[code]
    return {"code": code, "category": cat, "message": MESSAGES[code], "retryable": retry,
            "resolution": res, "expose_to_model": True, "expose_to_user": user, "details": details}


# ---------------------------------------------------------------- canonical JSON

def _canon_str(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonical(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) <= 2 ** 53:
            return str(int(v))
        r = repr(v)
        if "e" in r:
            mant, exp = r.split("e")
            exp = exp.lstrip("+")
            r = mant + "e" + exp
        return r
    if isinstance(v, str):
        return _canon_str(v)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, dict):
        items = sorted(v.items(), key=lambda kv: kv[0].encode("utf-8", "surrogatepass"))
        return "{" + ",".join(_canon_str(k) + ":" + canonical(x) for k, x in items) + "}"
    raise TypeError("not JSON")


def args_digest(args):
    return hashlib.sha256(canonical(args).encode("utf-8", "surrogatepass")).digest()


def idem_key(auth, tool, brid, digest):
    m = (auth["tenant_id"].encode() + b"\xff" + auth["subject_id"].encode() + b"\xff" + tool.encode() + b"\xff")
    if brid is not None:
        m += b"b" + brid.encode("utf-8", "surrogatepass")
    else:
        m += b"a" + digest
    return hashlib.sha256(m).hexdigest()


# ---------------------------------------------------------------- value-shape helpers

class DupDict(dict):
    dup_key = None


def _pairs_hook(pairs):
    d = DupDict()
    for k, v in pairs:
        if k in d and d.dup_key is None:
            d.dup_key = k
        d[k] = v
    return d


def _parse_int(s):
    if s == "-0":
        return -0.0
    return int(s)


def _parse_const(s):
    raise ValueError("non-finite number")


def load_line(line):
    return json.loads(line, object_pairs_hook=_pairs_hook, parse_int=_parse_int, parse_constant=_parse_const)


def check_value_structure(v):
    """Walk an already parsed value: duplicate keys and depth (iterative)."""
    stack = [(v, 1, "")]
    while stack:
        x, depth, path = stack.pop()
        if isinstance(x, (dict, list)):
            if depth > MAX_DEPTH:
                raise CallError("invalid_arguments", {"reason": "too_deep", "limit": MAX_DEPTH, "path": path})
            if isinstance(x, dict):
                if isinstance(x, DupDict) and x.dup_key is not None:
                    raise CallError("invalid_arguments", {"reason": "duplicate_key",
                                                          "path": path + "/" + sch._esc(x.dup_key)})
                for k, y in x.items():
                    stack.append((y, depth + 1, path + "/" + sch._esc(k)))
            else:
                for i, y in enumerate(x):
                    stack.append((y, depth + 1, path + "/" + str(i)))


def plain(v):
    """DupDict -> dict, recursively."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


# ---------------------------------------------------------------- store

class Store:
    """Idempotency records and kept task answers, in memory, written through to a file."""

    def __init__(self, session):
        base = os.environ.get("TMPDIR") or tempfile.gettempdir()
        self.path = os.path.join(base, "fresh-executor-%s-%d.json" % (session, os.getppid()))
        self.records = {}
        self.tasks = {}
        try:
            with open(self.path, "r", encoding="utf-8") as f:
                data = json.load(f)
            self.records = data.get("records", {})
            self.tasks = data.get("tasks", {})
        except FileNotFoundError:
            pass
        except Exception as e:  # a broken file: start empty, say so
            log("store: cannot read %s: %s" % (self.path, e))

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"records": self.records, "tasks": self.tasks}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


# ---------------------------------------------------------------- HTTP

class HttpResult:
    def __init__(self, kind, status=None, headers=None, body=None, complete=True):
        self.kind = kind  # "answer", "refused", "no_answer", "lost", "not_started"
        self.status = status
        self.headers = headers or {}
        self.body = body
        self.complete = complete

    def json(self):
        if self.body is None or not self.complete:
            return None, False
        try:
            return load_line(self.body.decode("utf-8")), True
        except Exception:
            return None, False


class Http:
    def __init__(self, base_url):
        u = urllib.parse.urlsplit(base_url)
        self.host = u.hostname
        self.port = u.port or 80
        self.base_path = u.path.rstrip("/")
        self.hostport = u.netloc

    async def request(self, method, path, headers, body, deadline):
        """deadline: absolute ms. Returns HttpResult."""
        remaining = (deadline - now_ms()) / 1000.0
        if remaining <= 0:
            return HttpResult("not_started")
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), remaining)
        except asyncio.TimeoutError:
            return HttpResult("not_started")
        except OSError:
            return HttpResult("refused")
        try:
            left = deadline - now_ms()
            if left <= 0:
                return HttpResult("not_started")
            hdrs = dict(headers)
            hdrs["X-Deadline-Ms"] = str(int(math.floor(left)))
            lines = ["%s %s%s HTTP/1.1" % (method, self.base_path, path), "Host: %s" % self.hostport,
                     "Connection: close", "Accept: application/json"]
            for k, v in hdrs.items():
                lines.append("%s: %s" % (k, v))
            data = b""
            if body is not None:
                data = body
                lines.append("Content-Type: application/json")
            if body is not None or method in ("POST", "PUT"):
                lines.append("Content-Length: %d" % len(data))
            raw = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + data
            try:
                writer.write(raw)
            except OSError:
                return HttpResult("lost")
            remaining = (deadline - now_ms()) / 1000.0
            try:
                return await asyncio.wait_for(self._read(reader, writer), max(remaining, 0.001))
            except asyncio.TimeoutError:
                return HttpResult("no_answer")
            except (OSError, asyncio.IncompleteReadError, ValueError):
                return HttpResult("lost")
        finally:
            try:
                writer.close()
            except Exception:
                pass

    async def _read(self, reader, writer):
        await writer.drain()
        status_line = await reader.readline()
        if not status_line:
            return HttpResult("lost")
        parts = status_line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/"):
            return HttpResult("lost")
        status = int(parts[1])
        headers = {}
        while True:
            l = await reader.readline()
            if not l:
                return HttpResult("answer", status, headers, None, complete=False)
            l = l.decode("latin-1").rstrip("\r\n")
            if not l:
                break
            if ":" in l:
                k, v = l.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        body = b""
        complete = True
        try:
            if headers.get("transfer-encoding", "").lower() == "chunked":
                chunks = []
                total = 0
                while True:
                    sz = await reader.readline()
                    if not sz:
                        complete = False
                        break
                    size = int(sz.split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        break
                    total += size
                    if total > MAX_BODY:
                        complete = False
                        break
                    chunks.append(await reader.readexactly(size))
                    await reader.readline()
                body = b"".join(chunks)
            elif "content-length" in headers:
                cl = int(headers["content-length"])
                if cl > MAX_BODY:
                    complete = False
                else:
                    body = await reader.readexactly(cl)
            else:
                body = await reader.read(MAX_BODY + 1)
                while True:
                    more = await reader.read(MAX_BODY + 1)
                    if not more:
                        break
                    body += more
                    if len(body) > MAX_BODY:
                        break
                if len(body) > MAX_BODY:
                    complete = False
        except (asyncio.IncompleteReadError, OSError, ValueError):
            complete = False
        return HttpResult("answer", status, headers, body if complete else None, complete)


def fill_template(tpl, args, key):
    method, target = tpl.split(" ", 1)
    path_part, _, query = target.partition("?")

    def sub(text, in_query):
        out = ""
        i = 0
        while i < len(text):
            if text[i] == "{":
                j = text.index("}", i)
                name = text[i + 1:j]
                if name == "idempotency_key":
                    v = key or ""
                else:
                    v = args.get(name) if isinstance(args, dict) else None
                if v is None:
                    s = ""
                elif isinstance(v, bool):
                    s = "true" if v else "false"
                elif isinstance(v, str):
                    s = v
                else:
                    s = canonical(v)
                out += urllib.parse.quote(s.encode("utf-8", "surrogatepass"), safe="")
                i = j + 1
            else:
                out += text[i]
                i += 1
        return out

    p = sub(path_part, False)
    if query:
        p += "?" + sub(query, True)
    return method, p


# ---------------------------------------------------------------- the executor

class Executor:
    def __init__(self, hello):
        self.session = hello["session"]
        self.http = Http(hello["downstream_url"])
        self.tools = {t["name"]: t for t in hello["catalog"]}
        self.store = Store(self.session)
        self.pid = os.getpid()

    # ---- envelopes
    def meta(self, ctx, replayed=False, reconciled=False, key=None):
        m = {"request_id": ctx["request_id"], "call_id": ctx["call_id"], "attempt": ctx["attempt"],
             "replayed": bool(replayed)}
        if key is not None:
            m["idempotency_key"] = key
        if reconciled:
            m["reconciled"] = True
        return m

    def fail(self, ctx, code, details=None, **kw):
        return {"ok": False, "error": error_obj(code, details or {}), "meta": self.meta(ctx, **kw)}

    def success(self, ctx, result, **kw):
        return {"ok": True, "result": result, "meta": self.meta(ctx, **kw)}

    def base_headers(self, ctx):
        return {"X-Request-Id": ctx["request_id"], "X-Tenant-Id": ctx["auth"]["tenant_id"],
                "X-Subject-Id": ctx["auth"]["subject_id"]}

    # ---- decoding
    def decode(self, call):
        name = call.get("name")
        a = call.get("arguments") or {}
        if "raw" in a:
            raw = a["raw"]
            data = raw.encode("utf-8", "surrogatepass")
            if len(data) > MAX_ARG_BYTES:
                raise CallError("invalid_arguments", {"reason": "too_large", "limit_bytes": MAX_ARG_BYTES,
                                                      "size_bytes": len(data)})
            try:
                value = strict_parse(data, MAX_DEPTH)
            except DecodeError as e:
                raise CallError(e.code, e.details)
        else:
            value = a.get("value")
            size = len(canonical(plain(value)).encode("utf-8", "surrogatepass")) if _json_ok(value) else 0
            if size > MAX_ARG_BYTES:
                raise CallError("invalid_arguments", {"reason": "too_large", "limit_bytes": MAX_ARG_BYTES,
                                                      "size_bytes": size})
            check_value_structure(value)
            value = plain(value)
        if not isinstance(value, dict):
            found = sch.type_name(value)
            if found == "integer":
                found = "number"
            raise CallError("invalid_arguments", {"reason": "not_an_object", "found": found})
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            raise CallError("tool_not_found", {"tool": (name or "")[:64]})
        viol = sch.validate(tool["input_schema"], value)
        if viol:
            first = viol[0]
            details = {"path": first["path"], "keyword": first["keyword"],
                       "violations": [{"path": v["path"], "keyword": v["keyword"], "message": v["message"]}
                                      for v in viol[:10]],
                       "violations_truncated": len(viol) > 10}
            missing = [v["_missing"] for v in viol if "_missing" in v]
            unexpected = [v["_unexpected"] for v in viol if "_unexpected" in v]
            if missing:
                details["missing"] = missing
            if unexpected:
                details["unexpected"] = unexpected
            raise CallError("schema_violation", details)
        return tool, value

    # ---- authorization
    def authorize_static(self, tool, args, auth, now):
        ident = auth.get("identity") or {}
        if not ident.get("valid"):
            raise CallError("unauthorized", {"reason": "identity_invalid"})
        exp = ident.get("expires_at_ms")
        if exp is not None and exp <= now:
            raise CallError("unauthorized", {"reason": "identity_expired"})
        allowed = auth.get("allowed_tools")
        if allowed is not None and tool["name"] not in allowed:
            raise CallError("forbidden", {"reason": "tool_not_allowed"})
        req = tool.get("required_scopes") or []
        scopes = auth.get("scopes") or []
        missing = [s for s in req if s not in scopes]
        if missing:
            raise CallError("forbidden", {"reason": "missing_scope", "required_scopes": missing})
        if tool.get("requires_approval"):
            ap = auth.get("approval")
            if not ap:
                raise CallError("approval_required", {"reason": "approval_missing", "tool": tool["name"]})
            d = {"tool": tool["name"], "approval_id": ap.get("approval_id")}
            digest_hex = hashlib.sha256(canonical(args).encode("utf-8", "surrogatepass")).hexdigest()
            for field, want in (("subject_id", auth["subject_id"]), ("tenant_id", auth["tenant_id"]),
                                ("tool", tool["name"]), ("arguments_hash", digest_hex), ("risk", tool["risk"])):
                if ap.get(field) != want:
                    raise CallError("approval_required", dict(d, reason="approval_mismatch", mismatch=field))
            if ap.get("expires_at_ms", 0) <= now:
                raise CallError("approval_required", dict(d, reason="approval_expired"))

    def owns(self, body, auth):
        if not isinstance(body, dict):
            return False
        if body.get("tenant_id") != auth["tenant_id"]:
            return False
        if body.get("owner_id") == auth["subject_id"]:
            return True
        return "support_admin" in (auth.get("roles") or [])

    async def lookup(self, ctx, tool, args, read_tool=False):
        """Load the resource; returns its body. Raises CallError on refusal or failure."""
        tpl = tool["downstream"].get("resource")
        method, path = fill_template(tpl, args, None)
        if ctx["deadline"] - now_ms() <= 0:
            raise CallError("timeout_not_started", {"reason": "deadline_elapsed"})
        r = await self.http.request(method, path, self.base_headers(ctx), None, ctx["deadline"])
        if r.kind == "answer" and r.status == 404:
            raise CallError("forbidden", {"reason": "resource_not_accessible"})
        if r.kind == "answer" and 200 <= r.status < 300:
            body, ok = r.json()
            if ok and isinstance(body, dict):
                body = plain(body)
                if not self.owns(body, ctx["auth"]):
                    raise CallError("forbidden", {"reason": "resource_not_accessible"})
                return body
            if read_tool and r.complete:
                raise CallError("output_invalid", {"reason": "unreadable", "downstream_status": r.status})
            raise CallError("dependency_unavailable", {"reason": "resource_lookup_failed", "downstream_status": r.status})
        if read_tool:
            raise CallError(*self.read_failure(r))
        if r.kind == "answer" and r.status == 429:
            raise CallError("rate_limited", {"retry_after_ms": retry_after_ms(r), "downstream_status": 429})
        if r.kind == "not_started" or (r.kind == "no_answer"):
            if r.kind == "not_started" or ctx["deadline"] - now_ms() <= 0:
                raise CallError("timeout_not_started", {"reason": "deadline_elapsed"})
        d = {"reason": "resource_lookup_failed"}
        if r.kind == "answer":
            d["downstream_status"] = r.status
        raise CallError("dependency_unavailable", d)

    def read_failure(self, r):
        if r.kind == "refused":
            return "dependency_unavailable", {"reason": "not_sent"}
        if r.kind == "not_started":
            return "timeout_not_started", {"reason": "deadline_elapsed"}
        if r.kind in ("no_answer", "lost"):
            return "dependency_unavailable", {"reason": "no_answer"}
        st = r.status
        if 300 <= st < 400:
            return "dependency_unavailable", {"reason": "unexpected_answer", "downstream_status": st}
        if st == 429:
            return "rate_limited", {"retry_after_ms": retry_after_ms(r), "downstream_status": 429}
        if st >= 500:
            return "dependency_unavailable", {"reason": "unavailable", "downstream_status": st}
        if 200 <= st < 300:
            # body never arrived whole
            return "dependency_unavailable", {"reason": "no_answer", "downstream_status": st}
        return "dependency_unavailable", {"reason": "unexpected_answer", "downstream_status": st}

    def rejection(self, tool, r):
        body, ok = r.json()
        reason = None
        field = None
        if ok and isinstance(body, dict) and isinstance(body.get("error"), dict):
            reason = body["error"].get("reason")
            field = body["error"].get("field")
        listed = tool.get("rejection_reasons") or []
        d = {}
        if isinstance(reason, str) and reason in listed:
            d["reason"] = reason
        else:
            d["reason"] = "not_found" if r.status == 404 else "downstream_rejected"
        if isinstance(field, str) and field in (tool["input_schema"].get("properties") or {}):
            d["field"] = field
        d["downstream_status"] = r.status
        return d

    def make_result(self, tool, body):
        """Project and validate a success body. Returns (result, None) or (None, details of output_invalid)."""
        result = sch.project(tool["output_schema"], body)
        viol = sch.validate(tool["output_schema"], result)
        if viol:
            return None, {"path": viol[0]["path"], "keyword": viol[0]["keyword"]}
        return result, None

    # ---- the pipeline
    async def execute(self, msg, read_at):
        call = msg.get("call") or {}
        auth = msg.get("auth") or {}
        ctx = {"request_id": "req_" + uuid.uuid4().hex, "call_id": call.get("call_id", ""),
               "attempt": msg.get("attempt", 1), "auth": auth,
               "deadline": read_at + (msg.get("budget_ms") or 0)}
        try:
            return await self.pipeline(msg, ctx)
        except CallError as e:
            return self.fail(ctx, e.code, e.details, key=ctx.get("key"))
        except Exception as e:  # never let a call go unanswered
            log("internal error:", repr(e))
            import traceback
            traceback.print_exc(file=sys.stderr)
            d = {}
            if "sent" in ctx:
                d["sent"] = ctx["sent"]
            return self.fail(ctx, "internal_error", d, key=ctx.get("key"))

    async def pipeline(self, msg, ctx):
        call = msg.get("call") or {}
        auth = ctx["auth"]
        tool, args = self.decode(call)
        now = now_ms()
        self.authorize_static(tool, args, auth, now)
        name = tool["name"]
        task = tool.get("task")
        if tool["risk"] == "read":
            return await self.run_read(ctx, tool, args)
        resource = None
        if tool["downstream"].get("resource"):
            resource = await self.lookup(ctx, tool, args)
        digest = args_digest(args)
        key = idem_key(auth, name, msg.get("business_request_id"), digest)
        return await self.run_write(ctx, tool, args, key, digest.hex(), resource)

    # ---- reads
    async def run_read(self, ctx, tool, args):
        task = tool.get("task")
        if task == "poll":
            return await self.run_poll(ctx, tool, args)
        ds = tool["downstream"]
        if ds.get("resource"):
            # the resource lookup and the tool's request are the same GET
            body = await self.lookup(ctx, tool, args, read_tool=True)
            result, bad = self.make_result(tool, body)
            if bad:
                return self.fail(ctx, "output_invalid", bad)
            return self.success(ctx, result)
        method, path = fill_template(ds["invoke"], args, None)
        r = await self.http.request(method, path, self.base_headers(ctx), None, ctx["deadline"])
        if r.kind == "answer" and 200 <= r.status < 300 and r.complete:
            body, ok = r.json()
            if not ok:
                return self.fail(ctx, "output_invalid", {"reason": "unreadable", "downstream_status": r.status})
            result, bad = self.make_result(tool, plain(body))
            if bad:
                return self.fail(ctx, "output_invalid", bad)
            return self.success(ctx, result)
        if r.kind == "answer" and r.status in (404, 409, 422) or (r.kind == "answer" and 400 <= r.status < 500 and r.status != 429):
            return self.fail(ctx, "business_rejected", self.rejection(tool, r))
        code, d = self.read_failure(r)
        return self.fail(ctx, code, d)

    async def run_poll(self, ctx, tool, args):
        handle = args["task_id"]
        kept = self.store.tasks.get(handle)
        if kept is not None:
            if not self.owns(kept["owner"], ctx["auth"]):
                return self.fail(ctx, "forbidden", {"reason": "resource_not_accessible"})
            return self.success(ctx, kept["result"])
        body = await self.lookup(ctx, tool, args, read_tool=True)
        result, bad = self.make_result(tool, body)
        if bad:
            return self.fail(ctx, "output_invalid", bad)
        if result.get("status") in ("completed", "cancelled", "failed"):
            if handle not in self.store.tasks:
                self.store.tasks[handle] = {"owner": {"tenant_id": body.get("tenant_id"),
                                                      "owner_id": body.get("owner_id")},
                                            "result": result}
                self.store.save()
            return self.success(ctx, self.store.tasks[handle]["result"])
        return self.success(ctx, result)

    # ---- side effects
    def claim(self, ctx, key, fingerprint):
        """Atomic (no await inside). Returns (action, record)."""
        recs = self.store.records
        now = now_ms()
        rec = recs.get(key)
        if rec is None:
            rec = {"fingerprint": fingerprint, "state": "IN_PROGRESS", "attempts": 1,
                   "deadline_ms": ctx["deadline"], "lease_ms": ctx["deadline"] + LEASE_EXTRA_MS,
                   "pid": self.pid, "holder": ctx["request_id"], "outcome": None, "sent": False}
            recs[key] = rec
            self.store.save()
            return "execute", rec
        if rec["fingerprint"] != fingerprint:
            return "conflict", rec
        st = rec["state"]
        if st == "IN_PROGRESS":
            holder_dead = rec.get("pid") != self.pid and not pid_alive(rec.get("pid") or 0)
            if rec["lease_ms"] > now and not holder_dead:
                return "in_progress", rec
            rec["state"] = "UNKNOWN"
            self.store.save()
            st = "UNKNOWN"
        if st in ("SUCCEEDED", "FAILED_FINAL"):
            return "replay", rec
        if st == "FAILED_RETRYABLE":
            if rec["attempts"] >= MAX_EXECUTIONS:
                return "exhausted", rec
            rec.update(state="IN_PROGRESS", attempts=rec["attempts"] + 1, deadline_ms=ctx["deadline"],
                       lease_ms=ctx["deadline"] + LEASE_EXTRA_MS, pid=self.pid, holder=ctx["request_id"],
                       sent=False)
            self.store.save()
            return "execute", rec
        if st == "UNKNOWN":
            if rec.get("reconciling") and rec.get("reconcile_until", 0) > now and rec.get("pid") == self.pid:
                return "in_progress", rec
            rec["reconciling"] = True
            rec["reconcile_until"] = ctx["deadline"] + LEASE_EXTRA_MS
            rec["pid"] = self.pid
            return "reconcile", rec
        return "in_progress", rec

    def settle(self, rec, envelope_body, state):
        rec["state"] = state
        rec["outcome"] = envelope_body
        rec["lease_ms"] = 0
        rec.pop("reconciling", None)
        self.store.save()

    def record_outcome(self, ctx, rec, env):
        """Record the final outcome of an execution and return the envelope."""
        if env["ok"]:
            self.settle(rec, {"ok": True, "result": env["result"]}, "SUCCEEDED")
        else:
            code = env["error"]["code"]
            if code in RETRYABLE_STATE_CODES:
                self.settle(rec, {"ok": False, "error": env["error"]}, "FAILED_RETRYABLE")
            elif code in UNKNOWN_STATE_CODES or code == "internal_error":
                self.settle(rec, {"ok": False, "error": env["error"]}, "UNKNOWN")
            else:
                self.settle(rec, {"ok": False, "error": env["error"]}, "FAILED_FINAL")
        return env

    async def run_write(self, ctx, tool, args, key, fingerprint, resource):
        ctx["key"] = key
        action, rec = self.claim(ctx, key, fingerprint)
        if action == "conflict":
            return self.fail(ctx, "idempotency_conflict", {"reason": "arguments_changed"}, key=key)
        if action == "in_progress":
            left = rec.get("lease_ms", 0) - now_ms()
            ra = int(min(5000, max(100, left)))
            return self.fail(ctx, "operation_in_progress", {"retry_after_ms": ra}, key=key)
        if action == "replay":
            out = rec["outcome"]
            if out["ok"]:
                return self.success(ctx, out["result"], replayed=True, key=key)
            return {"ok": False, "error": out["error"], "meta": self.meta(ctx, replayed=True, key=key)}
        if action == "exhausted":
            env = self.fail(ctx, "retry_budget_exhausted", {"attempts": rec["attempts"]}, key=key)
            self.settle(rec, {"ok": False, "error": env["error"]}, "FAILED_FINAL")
            return env
        if action == "reconcile":
            try:
                return await self.reconcile(ctx, tool, args, key, rec, resource)
            finally:
                rec.pop("reconciling", None)
        # execute
        try:
            env = await self.execute_effect(ctx, tool, args, key, resource)
        except CallError as e:
            env = self.fail(ctx, e.code, e.details, key=key)
        except Exception:
            import traceback
            traceback.print_exc(file=sys.stderr)
            env = self.fail(ctx, "internal_error", {"sent": bool(rec.get("sent"))}, key=key)
        return self.record_outcome(ctx, rec, env)

    async def reconcile(self, ctx, tool, args, key, rec, resource):
        status_tpl = tool["downstream"].get("status")
        if not status_tpl:
            if tool.get("repeatable"):
                return await self.resend(ctx, tool, args, key, rec, resource)
            return self.fail(ctx, "timeout_unknown", {"reason": "unreconcilable"}, key=key)
        method, path = fill_template(status_tpl, args, key)
        h = self.base_headers(ctx)
        h["Idempotency-Key"] = key
        r = await self.http.request(method, path, h, None, ctx["deadline"])
        if r.kind == "answer" and r.status == 200:
            body, ok = r.json()
            body = plain(body) if ok else None
            st = body.get("status") if isinstance(body, dict) else None
            if st == "completed":
                result, bad = self.make_result(tool, body.get("result"))
                if bad:
                    env = self.fail(ctx, "output_invalid", bad, key=key, reconciled=True)
                    self.settle(rec, {"ok": False, "error": env["error"]}, "FAILED_FINAL")
                    return env
                env = self.success(ctx, result, key=key, reconciled=True)
                self.settle(rec, {"ok": True, "result": result}, "SUCCEEDED")
                return env
            if st == "rejected":
                err = body.get("error") if isinstance(body.get("error"), dict) else {}
                reason = err.get("reason")
                d = {"reason": reason if reason in (tool.get("rejection_reasons") or []) else "downstream_rejected"}
                if isinstance(err.get("field"), str) and err["field"] in tool["input_schema"].get("properties", {}):
                    d["field"] = err["field"]
                env = self.fail(ctx, "business_rejected", d, key=key, reconciled=True)
                self.settle(rec, {"ok": False, "error": env["error"]}, "FAILED_FINAL")
                return env
            if st == "pending":
                return self.fail(ctx, "operation_in_progress", {"retry_after_ms": 1000, "reason": "downstream_pending"},
                                 key=key)
        if r.kind == "answer" and r.status == 404:
            body, ok = r.json()
            left = rec.get("deadline_ms", 0) - now_ms()
            if left > 0:
                return self.fail(ctx, "operation_in_progress",
                                 {"retry_after_ms": int(max(100, min(left + 100, 10000))),
                                  "reason": "awaiting_earlier_deadline"}, key=key)
            return await self.resend(ctx, tool, args, key, rec, resource)
        if r.kind == "not_started":
            return self.fail(ctx, "timeout_not_started", {"reason": "deadline_elapsed"}, key=key)
        if r.kind == "answer" and r.status == 429:
            return self.fail(ctx, "rate_limited", {"retry_after_ms": retry_after_ms(r), "downstream_status": 429}, key=key)
        d = {"reason": "reconciliation_failed"}
        if r.kind == "answer":
            d["downstream_status"] = r.status
        return self.fail(ctx, "dependency_unavailable", d, key=key)

    async def resend(self, ctx, tool, args, key, rec, resource):
        if rec["attempts"] >= MAX_EXECUTIONS:
            env = self.fail(ctx, "retry_budget_exhausted", {"attempts": rec["attempts"]}, key=key)
            self.settle(rec, {"ok": False, "error": env["error"]}, "FAILED_FINAL")
            return env
        rec.update(state="IN_PROGRESS", attempts=rec["attempts"] + 1, deadline_ms=ctx["deadline"],
                   lease_ms=ctx["deadline"] + LEASE_EXTRA_MS, pid=self.pid, holder=ctx["request_id"], sent=False)
        rec.pop("reconciling", None)
        self.store.save()
        try:
            env = await self.execute_effect(ctx, tool, args, key, resource)
        except CallError as e:
            env = self.fail(ctx, e.code, e.details, key=key)
        return self.record_outcome(ctx, rec, env)

    async def execute_effect(self, ctx, tool, args, key, resource):
        # business rules, after the claim
        for rule in tool.get("business_rules") or []:
            if rule.get("rule") == "at_most":
                v = args.get(rule["argument"])
                limit = (resource or {}).get(rule["attribute"])
                if v is not None and isinstance(limit, (int, float)) and not isinstance(limit, bool) and v > limit:
                    return self.fail(ctx, "business_rejected", {"reason": rule["reason"], "field": rule["argument"]},
                                     key=key)
        if ctx["deadline"] - now_ms() <= 0:
            return self.fail(ctx, "timeout_not_started", {"reason": "deadline_elapsed"}, key=key)
        method, path = fill_template(tool["downstream"]["invoke"], args, key)
        h = self.base_headers(ctx)
        h["Idempotency-Key"] = key
        body = None
        if method in ("POST", "PUT"):
            body = json.dumps(args, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        r = await self.http.request(method, path, h, body, ctx["deadline"])
        if r.kind == "not_started":
            return self.fail(ctx, "timeout_not_started", {"reason": "deadline_elapsed"}, key=key)
        if r.kind == "refused":
            return self.fail(ctx, "dependency_unavailable", {"reason": "not_sent"}, key=key)
        if r.kind == "no_answer":
            return self.fail(ctx, "timeout_unknown", {"reason": "deadline_elapsed"}, key=key)
        if r.kind == "lost":
            return self.fail(ctx, "timeout_unknown", {"reason": "connection_lost"}, key=key)
        st = r.status
        if 200 <= st < 300:
            if not r.complete:
                return self.fail(ctx, "timeout_unknown", {"reason": "connection_lost"}, key=key)
            b, ok = r.json()
            if not ok:
                return self.fail(ctx, "output_invalid", {"reason": "unreadable", "downstream_status": st}, key=key)
            result, bad = self.make_result(tool, plain(b))
            if bad:
                return self.fail(ctx, "output_invalid", bad, key=key)
            return self.success(ctx, result, key=key)
        if 300 <= st < 400:
            return self.fail(ctx, "timeout_unknown", {"reason": "unexpected_answer", "downstream_status": st}, key=key)
        if st == 429:
            return self.fail(ctx, "rate_limited", {"retry_after_ms": retry_after_ms(r), "downstream_status": 429}, key=key)
        if st >= 500:
            return self.fail(ctx, "dependency_unavailable", {"reason": "unavailable", "downstream_status": st}, key=key)
        if 400 <= st < 500:
            return self.fail(ctx, "business_rejected", self.rejection(tool, r), key=key)
        return self.fail(ctx, "timeout_unknown", {"reason": "unexpected_answer", "downstream_status": st}, key=key)


def retry_after_ms(r):
    v = r.headers.get("retry-after")
    if v is None:
        return 1000
    try:
        return int(float(v) * 1000)
    except ValueError:
        return 1000


def _json_ok(v):
    try:
        canonical(plain(v))
        return True
    except Exception:
        return False


# ---------------------------------------------------------------- main loop

class Main:
    def __init__(self):
        self.out = sys.stdout.buffer
        self.open = set()
        self.tasks = set()

    def send(self, obj):
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass") + b"\n"
        self.out.write(line)
        self.out.flush()

    async def run(self):
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=17 * 1024 * 1024, loop=loop)
        proto = asyncio.StreamReaderProtocol(reader, loop=loop)
        await loop.connect_read_pipe(lambda: proto, sys.stdin.buffer)
        line = await reader.readline()
        if not line:
            return 0
        try:
            hello = json.loads(line)
        except Exception:
            self.send({"type": "error", "id": None, "message": "cannot read the hello line"})
            return 1
        if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL:
            self.send({"type": "error", "id": None, "message": "unsupported protocol"})
            return 1
        self.ex = Executor(hello)
        self.send({"type": "capabilities", "protocol": PROTOCOL, "name": "fresh-executor", "version": "0.1.0",
                   "tools": sorted(self.ex.tools.keys()), "features": ["durable_store", "pause"]})
        rc = 0
        while True:
            try:
                line = await reader.readline()
            except (ValueError, asyncio.LimitOverrunError):
                self.send({"type": "error", "id": None, "message": "a line is too long"})
                rc = 1
                break
            if not line:
                break
            if not line.endswith(b"\n"):
                # input ended in the middle of a line
                self.send({"type": "error", "id": None, "message": "the input ended in the middle of a line"})
                rc = 1
                break
            read_at = now_ms()
            if not line.strip():
                continue
            try:
                text = line.decode("utf-8")
                try:
                    msg = load_line(text)
                except RecursionError:
                    msg = None
                if msg is None:
                    msg = deep_fallback(text)
            except Exception:
                self.send({"type": "error", "id": None, "message": "cannot read the message"})
                continue
            if not isinstance(msg, dict) or msg.get("type") != "execute" or not isinstance(msg.get("id"), str):
                self.send({"type": "error", "id": msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), str) else None,
                           "message": "not an execute message"})
                continue
            rid = msg["id"]
            if rid in self.open:
                self.send({"type": "error", "id": rid, "message": "this request id is still in flight"})
                continue
            self.open.add(rid)
            t = asyncio.ensure_future(self.handle(rid, msg, read_at))
            self.tasks.add(t)
            t.add_done_callback(self.tasks.discard)
        if self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
        return rc

    async def handle(self, rid, msg, read_at):
        try:
            env = await self.ex.execute(msg, read_at)
        except Exception as e:
            log("unexpected:", repr(e))
            env = {"ok": False, "error": error_obj("internal_error", {}),
                   "meta": {"request_id": "req_" + uuid.uuid4().hex, "call_id": (msg.get("call") or {}).get("call_id", ""),
                            "attempt": msg.get("attempt", 1), "replayed": False}}
        self.open.discard(rid)
        self.send({"type": "result", "id": rid, "envelope": env})


def deep_fallback(text):
    """The outer line nests deeper than Python's json recursion: parse it with the iterative strict parser
    (no depth limit for the envelope; duplicates inside the arguments then show as such)."""
    from strictjson import parse as p
    try:
        return p(text.encode("utf-8", "surrogatepass"), max_depth=10 ** 9)
    except DecodeError:
        # duplicate keys somewhere: cannot keep both; try without the check by a tolerant route
        raise


def main():
    try:
        rc = asyncio.run(Main().run())
    except KeyboardInterrupt:
        rc = 1
    sys.exit(rc)


if __name__ == "__main__":
    main()
