#!/usr/bin/env python3
"""A correct executor for the callproof conformance app, in Python, written from docs/protocol.md alone.

It speaks the adapter protocol callproof/1 (JSON lines on stdin/stdout; logs on stderr) and runs the same
pipeline as the reference executor: strict decoding -> authorization -> idempotency claim -> business rules
-> deadline -> HTTP call -> output validation -> record -> envelope. Idempotency records live in memory, so
it declares no `durable_store` feature: crash scenarios are expected to fail against it.

Dependencies: the standard library and `jsonschema` (requirements.txt).

    callproof conform --executor "python3 examples/python/callproof_executor.py"
"""

import hashlib
import http.client
import json
import os
import re
import sys
import threading
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor

import jsonschema

PROTOCOL = "callproof/1"
NAME = "callproof-python-example"
MAX_ARGUMENT_BYTES = 1024 * 1024
MAX_RESPONSE_BYTES = 1024 * 1024
MAX_DEPTH = 64
LEASE_MARGIN_MS = 2000
MAX_ATTEMPTS = 5
CLAIM_ROUNDS = 4
SUPPORT_ROLE = "support_admin"
MAX_RETRY_AFTER_S = 3600

# code -> (category, retryable, resolution, expose_to_user), docs/errors.md
CODES = {
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


FINAL_TASK_STATUSES = ("completed", "cancelled", "failed")


class Refusal(Exception):
    """An error envelope's body: a code, a fixed message and details."""

    def __init__(self, code, message, **details):
        super().__init__(message)
        self.code, self.message, self.details = code, message, details

    def body(self):
        category, retryable, resolution, to_user = CODES[self.code]
        return {"code": self.code, "category": category, "message": self.message, "retryable": retryable,
                "resolution": resolution, "expose_to_model": True, "expose_to_user": to_user,
                "details": self.details}


def now_ms():
    return int(time.time() * 1000)


# ---- canonical JSON and hashes ------------------------------------------------------------------------------

def canonical(value):
    """Sorted keys, no whitespace, integral floats within 2^53 as integers (the approval hash's form)."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda item: item[0].encode("utf-8", "surrogatepass"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical(v) for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical(item) for item in value) + "]"
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        if value.is_integer() and abs(value) <= 2 ** 53:
            return str(int(value))
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        return mantissa + ("e" + str(int(exponent)) if exponent else "")
    raise TypeError(type(value))


def utf8_size(text):
    """Limits are in UTF-8 bytes, not characters."""
    return len(text.encode("utf-8", "surrogatepass"))


def sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def derive_key(auth, tool, canonical_arguments, business_request_id):
    """One key per business operation: never the call_id, never the attempt.

    Record format 2, as the reference executor derives it (docs/protocol.md): SHA-256 over tenant, subject and
    tool, each ended by the byte FF (which UTF-8 never holds), then "b" and the business request id, or "a" and
    the 32-byte SHA-256 of the canonical arguments.
    """
    material = b"".join(name.encode("utf-8") + b"\xff" for name in (auth["tenant_id"], auth["subject_id"], tool))
    if business_request_id is not None:
        material += b"b" + business_request_id.encode("utf-8")
    else:
        material += b"a" + hashlib.sha256(canonical_arguments.encode("utf-8")).digest()
    return hashlib.sha256(material).hexdigest()


# ---- stage 1: strict decoding -------------------------------------------------------------------------------

class _Duplicate(Exception):
    def __init__(self, key):
        super().__init__(key)
        self.key = key


class _NonFinite(Exception):
    pass


class _OutOfRange(Exception):
    pass


class _Marked(dict):
    """An object that repeated a key (used to find the repeated member's path)."""
    duplicate = None


def _reject_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _Duplicate(key)
        seen[key] = value
    return seen


def _mark_duplicates(pairs):
    marked = _Marked()
    for key, value in pairs:
        if key in marked and marked.duplicate is None:
            marked.duplicate = key
        marked[key] = value
    return marked


def _reject_constant(name):
    raise _NonFinite(name)


def _parse_float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _OutOfRange(text)
    return value  # stays a float: 100.0 and 1e2 are not integer literals


def _parse_int(text):
    if text == "-0":
        return -0.0  # not an unambiguous integer literal
    if len(text) > 400:  # more digits than any double holds (int() refuses 4300 and more): out of range
        raise _OutOfRange(text)
    value = int(text)
    if not -(2 ** 63) <= value <= 2 ** 64 - 1:
        try:
            return float(value)  # beyond 64 bits: parsers would round it; not an integer literal
        except OverflowError:  # beyond a double, as 1e400 is
            raise _OutOfRange(text) from None
    return value


def _pointer(parts):
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def _find_duplicate(value, path=()):
    if isinstance(value, _Marked) and value.duplicate is not None:
        return path + (value.duplicate,)
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found = _find_duplicate(child, path + (key,))
        if found:
            return found
    return None


def _position(text, char_offset):
    """Line, column and offset of one byte (docs/errors.md): a truncated text's is its last byte, not the end."""
    char_offset = min(char_offset, max(len(text) - 1, 0))
    prefix = text[:char_offset].encode("utf-8", "surrogatepass")
    line = prefix.count(b"\n") + 1
    column = len(prefix) - (prefix.rfind(b"\n") + 1) + 1
    return {"line": line, "column": column, "offset": len(prefix)}


def _invalid_json(text, char_offset, hint=None):
    details = _position(text, char_offset)
    if hint:
        details["hint"] = hint
    return Refusal("invalid_json", "tool arguments are not valid JSON", **details)


def _syntax_hint(text, error):
    pos, rest = error.pos, text[error.pos:]
    before = text[:pos].rstrip()
    if error.msg.startswith("Extra data"):
        return "trailing_characters"
    if error.msg.startswith("Invalid control character"):
        return "control_character"
    if rest.startswith(("True", "False", "None")):
        return "python_literal"
    if rest.startswith("'"):
        return "single_quotes"
    if rest.startswith(("//", "/*", "#")):
        return "comment"
    if rest[:1] in ("}", "]") and before.endswith(","):
        return "trailing_comma"
    if not text[pos:].strip() or error.msg.startswith("Unterminated string"):
        return "truncated"
    return None


_LONE_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|"
                             r"(?<![\\]u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _has_surrogate(value):
    if isinstance(value, str):
        return any(0xD800 <= ord(char) <= 0xDFFF for char in value)
    if isinstance(value, dict):
        return any(_has_surrogate(key) or _has_surrogate(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(item) for item in value)
    return False


def _too_deep_offset(text):
    """The offset where nesting first passes MAX_DEPTH (outside strings), or None."""
    depth, in_string, escaped = 0, False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return index
        elif char in "]}":
            depth -= 1
    return None


def _too_deep(text=None, offset=None):
    details = {"reason": "too_deep", "limit": MAX_DEPTH}
    if text is not None:
        details.update(_position(text, offset))
    return Refusal("invalid_arguments", "tool arguments nest too deeply", **details)


def parse_raw(text):
    size = utf8_size(text)
    if size > MAX_ARGUMENT_BYTES:
        raise Refusal("invalid_arguments", "tool arguments are too large", reason="too_large",
                      limit_bytes=MAX_ARGUMENT_BYTES, size_bytes=size)
    if text.startswith("\ufeff"):
        raise _invalid_json(text, 0, "byte_order_mark")
    deep_at = _too_deep_offset(text)
    hooks = dict(parse_constant=_reject_constant, parse_float=_parse_float, parse_int=_parse_int)
    try:
        value = json.loads(text, object_pairs_hook=_reject_duplicates, **hooks)
    except _Duplicate as duplicate:
        try:
            path = _find_duplicate(json.loads(text, object_pairs_hook=_mark_duplicates, **hooks))
        except Exception:  # a later syntax error: the top-level guess is the best we have
            path = (duplicate.key,)
        raise Refusal("invalid_arguments", "tool arguments repeat a key", reason="duplicate_key",
                      path=_pointer(path or (duplicate.key,)))
    except _NonFinite:
        match = re.search(r"-?(NaN|Infinity)", text)
        raise _invalid_json(text, match.start() if match else 0, "non_finite_number")
    except _OutOfRange:
        match = re.search(r"\d[\d.]*[eE][+-]?\d+", text)
        raise _invalid_json(text, match.start() if match else 0, "number_out_of_range")
    except RecursionError:
        raise _too_deep(text, deep_at or 0)
    except json.JSONDecodeError as error:
        if deep_at is not None and deep_at < error.pos:
            raise _too_deep(text, deep_at)
        # docs/errors.md: a bad escape's offending byte is the character after the backslash (Python names the
        # backslash itself).
        at = error.pos + 1 if error.msg.startswith("Invalid \\escape") else error.pos
        raise _invalid_json(text, at, _syntax_hint(text, error))
    if deep_at is not None:
        raise _too_deep(text, deep_at)
    if _has_surrogate(value):
        match = _LONE_SURROGATE.search(text)
        raise _invalid_json(text, match.start() if match else 0, "lone_surrogate")
    return value


def check_value_shape(value):
    size, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            if depth + 1 > MAX_DEPTH:
                raise _too_deep()
            stack.extend((child, depth + 1) for child in node.values())
            size += sum(utf8_size(key) + 4 for key in node) + 2
        elif isinstance(node, list):
            if depth + 1 > MAX_DEPTH:
                raise _too_deep()
            stack.extend((child, depth + 1) for child in node)
            size += len(node) + 2
        elif isinstance(node, str):
            size += utf8_size(node) + 2
        else:
            size += 24 if isinstance(node, (int, float)) and not isinstance(node, bool) else 5
        if size > MAX_ARGUMENT_BYTES:
            raise Refusal("invalid_arguments", "tool arguments are too large", reason="too_large",
                          limit_bytes=MAX_ARGUMENT_BYTES, size_bytes=size)


def _json_type(value):
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool))
StrictValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_TYPES)


def _violations(validator, value):
    # By place, and at one place a wrong type first (docs/errors.md): -0 or 1e30 is no integer before it is
    # below a minimum or above a maximum.
    errors = sorted(validator.iter_errors(value),
                    key=lambda error: (list(error.absolute_path), error.validator != "type"))
    return [{"path": _pointer(error.absolute_path), "keyword": str(error.validator),
             "message": "does not satisfy `%s`" % error.validator, "members": _members(error)} for error in errors]


def _members(error):
    """Pointers of the members a `required` error finds missing, or an `additionalProperties` error unexpected."""
    instance, at = error.instance, list(error.absolute_path)
    if not isinstance(instance, dict):
        return []
    if error.validator == "required":
        return [_pointer(at + [name]) for name in error.validator_value if name not in instance]
    if error.validator == "additionalProperties":
        declared = error.schema.get("properties", {})
        return [_pointer(at + [name]) for name in instance if name not in declared][:32]
    return []


def _named(violations, keyword):
    named = []
    for violation in violations:
        if violation["keyword"] == keyword:
            named.extend(member for member in violation["members"] if member not in named)
    return named


class Tool:
    def __init__(self, entry):
        self.entry = entry
        self.name = entry["name"]
        self.risk = entry["risk"]
        self.side_effect = self.risk != "read"
        checker = jsonschema.FormatChecker()
        self.input = StrictValidator(entry["input_schema"], format_checker=checker)
        self.output = StrictValidator(entry["output_schema"], format_checker=checker)
        self.declared_in = set(entry["input_schema"].get("properties", {}))
        self.declared_out = set(entry["output_schema"].get("properties", {}))
        self.downstream = entry["downstream"]


def decode(call, tools):
    arguments = call["arguments"]
    if "raw" in arguments:
        value = parse_raw(arguments["raw"])
    else:
        value = arguments.get("value")
        check_value_shape(value)
    if not isinstance(value, dict):
        raise Refusal("invalid_arguments", "tool arguments must be a JSON object", reason="not_an_object",
                      found=_json_type(value))
    tool = tools.get(call["name"])
    if tool is None:
        raise Refusal("tool_not_found", "no tool has this exact name", tool=call["name"][:64])
    violations = _violations(tool.input, value)
    if violations:
        first = violations[0]
        named = {name: _named(violations, keyword) for name, keyword in
                 (("missing", "required"), ("unexpected", "additionalProperties"))}
        listed = [{key: item for key, item in violation.items() if key != "members"} for violation in violations[:10]]
        raise Refusal("schema_violation", "the arguments do not match the tool's input schema", path=first["path"],
                      keyword=first["keyword"], violations=listed, violations_truncated=len(violations) > 10,
                      **{name: members for name, members in named.items() if members})
    text = canonical(value)
    return tool, value, text, sha256_hex(text)


# ---- the downstream: HTTP with the remaining deadline -------------------------------------------------------

class NotSent(Exception):
    pass


class Lost(Exception):
    pass


class TimedOut(Exception):
    pass


def expand(template, arguments, key):
    """`"GET /orders/{order_id}"` -> ("GET", "/orders/ord_1"): values percent-encoded, absent or null as empty."""
    method, _, path = template.partition(" ")

    def value_of(match):
        name = match.group(1)
        value = key if name == "idempotency_key" else arguments.get(name)
        if value is None:
            value = ""
        elif not isinstance(value, str):
            value = json.dumps(value)
        return urllib.parse.quote(value, safe="-._~")

    return method, re.sub(r"\{([a-z_]+)\}", value_of, path)


# What X-Request-Id carries downstream: the envelope's request_id (the default, and what docs/protocol.md asks),
# nothing at all (`omit`), or a fresh id on every HTTP request (`per-request`, as a tracing middleware that mints
# its own ids would). The last two exist to test the harness's attribution without the header (issue 17).
REQUEST_ID_MODES = ("envelope", "omit", "per-request")
REQUEST_ID_VARIABLE = "CALLPROOF_EXAMPLE_REQUEST_ID"


class Downstream:
    def __init__(self, base_url):
        parsed = urllib.parse.urlsplit(base_url)
        self.host, self.port = parsed.hostname, parsed.port or 80
        self.request_id_mode = os.environ.get(REQUEST_ID_VARIABLE) or "envelope"
        if self.request_id_mode not in REQUEST_ID_MODES:
            raise ValueError("%s=%r: expected one of %s" % (REQUEST_ID_VARIABLE, self.request_id_mode,
                                                           ", ".join(REQUEST_ID_MODES)))

    def headers(self, method, ctx, key, remaining):
        headers = {"X-Deadline-Ms": str(remaining), "X-Tenant-Id": ctx.auth["tenant_id"],
                   "X-Subject-Id": ctx.auth["subject_id"]}
        if self.request_id_mode == "envelope":
            headers["X-Request-Id"] = ctx.request_id
        elif self.request_id_mode == "per-request":
            headers["X-Request-Id"] = "req_" + uuid.uuid4().hex
        if key is not None:
            headers["Idempotency-Key"] = key
        return headers

    def send(self, template, arguments, ctx, key=None):
        method, target = expand(template, arguments, key)
        remaining = ctx.remaining_ms()
        if remaining <= 0:
            raise TimedOut()
        headers = self.headers(method, ctx, key, remaining)
        body = None
        if method in ("POST", "PUT"):
            body = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        connection = http.client.HTTPConnection(self.host, self.port, timeout=remaining / 1000)
        try:
            try:
                connection.connect()
            except OSError:
                raise NotSent()
            ctx.sent = True
            sock = connection.sock  # kept: the connection forgets it once an answer says it will close
            try:
                connection.request(method, target, body=body, headers=headers)
                response = connection.getresponse()
                data = read_body(response, 200 <= response.status < 300, sock, ctx)
            except TimeoutError:
                raise TimedOut()
            except (OSError, http.client.HTTPException):
                if ctx.remaining_ms() <= 0:
                    raise TimedOut()
                raise Lost()
            return response.status, {name.lower(): value for name, value in response.getheaders()}, data
        finally:
            connection.close()


def read_body(response, success, sock, ctx):
    """The answer's body, read within the call's deadline (a socket's timeout bounds each read, not the answer: a
    body that trickles in would outlast it). A success's body is its result: cut short, over the limit or late, the
    outcome is unknown (the read's error goes up). Any other status is a definite answer already: keep it, drop a
    body it cannot read."""
    try:
        chunks, size = [], 0
        while size <= MAX_RESPONSE_BYTES:
            # Past the deadline, what already arrived is still read (a process stopped with the answer waiting in
            # its socket); waiting for more is not.
            sock.settimeout(max(ctx.remaining_ms(), 1) / 1000)
            chunk = response.read1(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        announced = response.getheader("content-length", "")
        if len(data) <= MAX_RESPONSE_BYTES and (not announced.isdigit() or len(data) == int(announced)):
            return data
        if success:
            raise Lost()
    except (OSError, http.client.HTTPException):
        if success:
            raise
    return b""


# ---- the executor -------------------------------------------------------------------------------------------

class Context:
    def __init__(self, request_id, auth, deadline):
        self.request_id, self.auth, self.deadline, self.sent = request_id, auth, deadline, False

    def remaining_ms(self):
        return max(0, int((self.deadline - time.monotonic()) * 1000))


class Record:
    def __init__(self, fingerprint, lease, deadline):
        self.fingerprint, self.state, self.epoch, self.attempts = fingerprint, "IN_PROGRESS", 1, 1
        self.lease, self.deadline, self.outcome = lease, deadline, None

    def version(self):
        return (self.state, self.epoch)


class Executor:
    def __init__(self, hello):
        self.tools = {entry["name"]: Tool(entry) for entry in hello["catalog"]}
        self.downstream = Downstream(hello["downstream_url"])
        self.records, self.lock = {}, threading.Lock()
        # A task poll's first final answer, per (tenant, handle): every later poll answers it (docs/protocol.md).
        self.task_finals = {}
        self.prefix, self.counter = uuid.uuid4().hex[:12], 0

    def next_request_id(self):
        with self.lock:
            self.counter += 1
            return "req_%s%06x" % (self.prefix, self.counter)

    def execute(self, message, received):
        call, auth = message["call"], message["auth"]
        deadline = received + message["budget_ms"] / 1000
        ctx = Context(self.next_request_id(), auth, deadline)
        meta = {"request_id": ctx.request_id, "call_id": call["call_id"], "attempt": message["attempt"],
                "replayed": False}
        try:
            return self.pipeline(call, auth, message.get("business_request_id"), ctx, meta)
        except Refusal as refusal:
            return fail(refusal, meta)
        except Exception as error:  # a bug here: answer internal_error, and say truly whether the request left
            log("internal error: %r" % (error,))
            return fail(Refusal("internal_error", "the executor failed unexpectedly", sent=ctx.sent), meta)

    def pipeline(self, call, auth, business_request_id, ctx, meta):
        tool, arguments, canonical_arguments, arguments_hash = decode(call, self.tools)
        return self.run_decoded(tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id,
                                ctx, meta)

    def run_decoded(self, tool, arguments, canonical_arguments, arguments_hash, auth, business_request_id, ctx,
                    meta):
        """Every stage after decoding (examples/mcp-python reuses it behind the MCP SDK's own decoding)."""
        resource = self.authorize(tool, arguments, arguments_hash, auth, ctx)
        final_key = None
        if tool.entry.get("task") == "poll":
            final_key = (auth["tenant_id"], arguments.get("task_id"))
            with self.lock:
                kept = self.task_finals.get(final_key)
            if kept is not None:
                return succeed(kept, meta)
        held = None
        if tool.side_effect:
            key = derive_key(auth, tool.name, canonical_arguments, business_request_id)
            meta["idempotency_key"] = key
            claimed = self.claim(key, arguments_hash, tool, arguments, ctx, meta)
            if isinstance(claimed, dict):
                return claimed
            held = claimed
        try:
            self.check_business_rules(tool, arguments, resource)
            state, result = self.call_tool(tool, arguments, ctx, held)
        except Refusal as refusal:
            state, result = "FAILED_FINAL", refusal
        if not isinstance(result, Refusal):
            violations = _violations(tool.output, result)
            if violations:
                state, result = "FAILED_FINAL", Refusal("output_invalid", "the tool's output breaks its contract",
                                                        path=violations[0]["path"],
                                                        keyword=violations[0]["keyword"])
        if final_key is not None and not isinstance(result, Refusal) and result.get("status") in FINAL_TASK_STATUSES:
            with self.lock:
                result = self.task_finals.setdefault(final_key, result)
        envelope = fail(result, meta) if isinstance(result, Refusal) else succeed(result, meta)
        if held is not None:
            self.compare_and_set(held[0], held[1], state, envelope)
        return envelope

    def authorize(self, tool, arguments, arguments_hash, auth, ctx):
        """The resource the call acts on (None for tools without one), or a Refusal."""
        self.check_caller(tool, arguments_hash, auth)
        binding = tool.entry.get("resource")
        if not binding or not isinstance(arguments.get(binding["argument"]), str):
            return None
        resource = self.lookup_resource(tool, arguments, ctx)
        if not may_act_on(resource, auth):
            raise Refusal("forbidden", "the resource is not accessible", reason="resource_not_accessible")
        return resource

    def check_caller(self, tool, arguments_hash, auth):
        """Identity, allowed tools, scopes and approval: everything the trusted context alone decides."""
        identity = auth["identity"]
        if not identity["valid"]:
            raise Refusal("unauthorized", "the caller's identity is not valid", reason="identity_invalid")
        if identity.get("expires_at_ms") is not None and identity["expires_at_ms"] <= now_ms():
            raise Refusal("unauthorized", "the caller's identity has expired", reason="identity_expired")
        allowed = auth.get("allowed_tools")
        if allowed is not None and tool.name not in allowed:
            raise Refusal("forbidden", "the caller may not use this tool", reason="tool_not_allowed")
        missing = [scope for scope in tool.entry.get("required_scopes", []) if scope not in auth.get("scopes", [])]
        if missing:
            raise Refusal("forbidden", "the caller lacks a required scope", reason="missing_scope",
                          required_scopes=missing)
        if tool.entry.get("requires_approval"):
            self.check_approval(tool, arguments_hash, auth)

    def lookup_resource(self, tool, arguments, ctx):
        """The resource from the system of record, or None when it answered 404."""
        if ctx.remaining_ms() <= 0:
            raise Refusal("timeout_not_started", "the deadline passed before access could be checked",
                          reason="deadline_elapsed")
        try:
            status, _, body = self.downstream.send(tool.downstream["resource"], arguments, ctx)
        except TimedOut:
            raise Refusal("timeout_not_started", "the deadline passed while checking access",
                          reason="deadline_elapsed")
        except (NotSent, Lost):
            raise Refusal("dependency_unavailable", "the system of record could not be reached",
                          reason="resource_lookup_failed")
        finally:
            ctx.sent = False
        resource = None
        if 200 <= status < 300:
            try:
                resource = json.loads(body)
            except ValueError:
                resource = None
            if not isinstance(resource, dict) or not all(isinstance(resource.get(f), str)
                                                         for f in ("tenant_id", "owner_id")):
                raise Refusal("dependency_unavailable", "the system of record could not be reached",
                              reason="resource_lookup_failed")
        elif status != 404:
            raise Refusal("dependency_unavailable", "the system of record could not be reached",
                          reason="resource_lookup_failed")
        return resource

    def check_approval(self, tool, arguments_hash, auth):
        approval = auth.get("approval")
        if approval is None:
            raise Refusal("approval_required", "this operation needs the user's approval",
                          reason="approval_missing", tool=tool.name)
        for field, matches in (("subject_id", approval["subject_id"] == auth["subject_id"]),
                               ("tenant_id", approval["tenant_id"] == auth["tenant_id"]),
                               ("tool", approval["tool"] == tool.name),
                               ("arguments_hash", approval["arguments_hash"] == arguments_hash),
                               ("risk", approval["risk"] == tool.risk)):
            if not matches:
                raise Refusal("approval_required", "the approval does not cover this exact operation",
                              reason="approval_mismatch", tool=tool.name, mismatch=field,
                              approval_id=approval["approval_id"])
        if approval["expires_at_ms"] <= now_ms():
            raise Refusal("approval_required", "the approval has expired", reason="approval_expired",
                          tool=tool.name, approval_id=approval["approval_id"])

    def check_business_rules(self, tool, arguments, resource):
        for rule in tool.entry.get("business_rules", []):
            if rule["rule"] != "at_most":
                continue
            wanted = arguments.get(rule["argument"])
            limit = (resource or {}).get(rule["attribute"])
            numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (wanted, limit))
            if numbers and wanted > limit:
                raise Refusal("business_rejected", "a business rule refused the request", reason=rule["reason"],
                              field=rule["argument"])

    # -- idempotency: a compare-and-set state machine in memory --

    def compare_and_set(self, key, version, state, outcome, **changes):
        with self.lock:
            record = self.records.get(key)
            if record is None or record.version() != version:
                return False
            record.state, record.outcome = state, outcome
            for name, value in changes.items():
                setattr(record, name, value)
            return True

    def claim(self, key, fingerprint, tool, arguments, ctx, meta):
        """The held (key, version) to execute under, or an envelope to answer now."""
        deadline_ms = now_ms() + ctx.remaining_ms()
        lease = deadline_ms + LEASE_MARGIN_MS
        for _ in range(CLAIM_ROUNDS):
            with self.lock:
                record = self.records.get(key)
                if record is None:
                    self.records[key] = Record(fingerprint, lease, deadline_ms)
                    return (key, ("IN_PROGRESS", 1))
                snapshot = (record.fingerprint, record.state, record.epoch, record.attempts, record.lease,
                            record.deadline, record.outcome)
            stored_fingerprint, state, epoch, attempts, record_lease, record_deadline, outcome = snapshot
            if stored_fingerprint != fingerprint:
                return fail(Refusal("idempotency_conflict",
                                    "this business request was already made with different arguments",
                                    reason="arguments_changed"), meta)
            now = now_ms()
            if state == "IN_PROGRESS" and record_lease > now:
                return fail(in_progress(record_lease - now), meta)
            if state == "IN_PROGRESS":
                self.compare_and_set(key, (state, epoch), "UNKNOWN", outcome)
            elif state in ("SUCCEEDED", "FAILED_FINAL"):
                return replay(outcome, meta)
            elif state == "FAILED_RETRYABLE" and attempts >= MAX_ATTEMPTS:
                envelope = fail(Refusal("retry_budget_exhausted",
                                        "this business request failed too often; retries stop here",
                                        attempts=attempts), meta)
                if self.compare_and_set(key, (state, epoch), "FAILED_FINAL", envelope):
                    return envelope
            elif state == "FAILED_RETRYABLE":
                if self.compare_and_set(key, (state, epoch), "IN_PROGRESS", None, epoch=epoch + 1,
                                        attempts=attempts + 1, lease=lease, deadline=deadline_ms):
                    return (key, ("IN_PROGRESS", epoch + 1))
            else:  # UNKNOWN: find the truth before anything is sent again
                answer = self.reconcile(key, (state, epoch), record_deadline, outcome, tool, arguments, ctx, meta)
                if answer is not None:
                    return answer
        return fail(in_progress(0), meta)

    def reconcile(self, key, version, earlier_deadline, outcome, tool, arguments, ctx, meta):
        template = tool.downstream.get("status")
        if template is None:
            if tool.entry.get("repeatable"):
                self.compare_and_set(key, version, "FAILED_RETRYABLE", None)
                return None
            if outcome is not None:
                return replay(outcome, meta)
            return fail(Refusal("timeout_unknown", "an earlier attempt's outcome is unknown and this tool cannot "
                                "be reconciled automatically", reason="unreconcilable"), meta)
        failed = Refusal("dependency_unavailable", "the outcome of an earlier attempt could not be checked; "
                         "retry later", reason="reconciliation_failed")
        try:
            status, _, body = self.downstream.send(template, arguments, ctx, key=key)
        except (NotSent, Lost, TimedOut):
            return fail(failed, meta)
        if status == 404:
            found = {"status": "not_found"}
        elif status == 200:
            try:
                found = json.loads(body)
            except ValueError:
                return fail(failed, meta)
        else:
            return fail(failed, meta)
        kind = found.get("status") if isinstance(found, dict) else None
        if kind == "completed":
            meta["reconciled"] = True
            result = project(tool, found.get("result"))
            violations = _violations(tool.output, result)
            if violations:
                state, envelope = "FAILED_FINAL", fail(Refusal(
                    "output_invalid", "the tool's output breaks its contract", path=violations[0]["path"],
                    keyword=violations[0]["keyword"]), meta)
            else:
                state, envelope = "SUCCEEDED", succeed(result, meta)
            self.compare_and_set(key, version, state, envelope)
            return envelope
        if kind == "rejected":
            meta["reconciled"] = True
            envelope = fail(rejection(tool, body, "downstream_rejected"), meta)
            self.compare_and_set(key, version, "FAILED_FINAL", envelope)
            return envelope
        if kind == "pending":
            refusal = in_progress(0)
            refusal.details["reason"] = "downstream_pending"
            return fail(refusal, meta)
        if kind == "not_found":
            now = now_ms()
            if earlier_deadline > now:
                refusal = in_progress(earlier_deadline - now)
                refusal.details["reason"] = "awaiting_earlier_deadline"
                return fail(refusal, meta)
            self.compare_and_set(key, version, "FAILED_RETRYABLE", None)
            return None
        return fail(failed, meta)

    # -- stages 5 and 6 --

    def call_tool(self, tool, arguments, ctx, held):
        if ctx.remaining_ms() <= 0:
            return "FAILED_RETRYABLE", Refusal("timeout_not_started", "the deadline passed before the request "
                                               "was sent", reason="deadline_elapsed")
        key = held[0] if held else None
        try:
            status, headers, body = self.downstream.send(tool.downstream["invoke"], arguments, ctx, key=key)
        except NotSent:
            return "FAILED_RETRYABLE", Refusal("dependency_unavailable", "the downstream service could not be "
                                               "reached; nothing was sent", reason="not_sent")
        except (Lost, TimedOut) as error:
            if not ctx.sent:
                return "FAILED_RETRYABLE", Refusal("timeout_not_started", "the deadline passed before the request "
                                                   "was sent", reason="deadline_elapsed")
            if not tool.side_effect:
                return "FAILED_RETRYABLE", Refusal("dependency_unavailable", "the downstream did not answer in "
                                                   "time; reading again is safe", reason="no_answer")
            reason = "deadline_elapsed" if isinstance(error, TimedOut) else "connection_lost"
            return "UNKNOWN", Refusal("timeout_unknown", "the request was sent and its outcome is unknown",
                                      reason=reason)
        if 200 <= status < 300:
            try:
                return "SUCCEEDED", project(tool, json.loads(body))
            except ValueError:
                return "FAILED_FINAL", Refusal("output_invalid", "the tool's answer could not be read",
                                               reason="unreadable", downstream_status=status)
        if status == 429:
            try:
                wait_ms = min(int(headers.get("retry-after", "").strip()), MAX_RETRY_AFTER_S) * 1000
            except ValueError:
                wait_ms = 1000
            return "FAILED_RETRYABLE", Refusal("rate_limited", "the downstream service is rate limiting; retry "
                                               "later", retry_after_ms=wait_ms)
        if 500 <= status < 600:
            return "FAILED_RETRYABLE", Refusal("dependency_unavailable", "the downstream service is unavailable "
                                               "and did not apply the request", reason="unavailable",
                                               downstream_status=status)
        if 300 <= status < 400:
            # A redirect is an answer, never followed (http.client does not): the request arrived and nothing
            # says whether it was applied, so a side effect's outcome is unknown and a read may be repeated.
            if not tool.side_effect:
                return "FAILED_RETRYABLE", Refusal("dependency_unavailable", "the downstream answered outside its "
                                                   "contract; reading again is safe", reason="unexpected_answer",
                                                   downstream_status=status)
            return "UNKNOWN", Refusal("timeout_unknown", "the downstream answered outside its contract after the "
                                      "request was sent; its outcome is unknown", reason="unexpected_answer",
                                      downstream_status=status)
        default = {404: "not_found", 409: "downstream_rejected", 422: "downstream_rejected"}.get(status)
        refusal = rejection(tool, body, default) if default else Refusal(
            "business_rejected", "a business rule refused the request", reason="downstream_refused")
        refusal.details["downstream_status"] = status
        return "FAILED_FINAL", refusal


def may_act_on(resource, auth):
    """The caller's tenant, and the caller's own unless a support_admin; a missing resource is never accessible."""
    return resource is not None and resource["tenant_id"] == auth["tenant_id"] and (
        resource["owner_id"] == auth["subject_id"] or SUPPORT_ROLE in auth.get("roles", []))


def project(tool, value):
    """Keeps the members the output schema declares: the downstream's record may hold internal fields."""
    if isinstance(value, dict) and tool.declared_out:
        return {name: item for name, item in value.items() if name in tool.declared_out}
    return value


def rejection(tool, body, default_reason):
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        error = None
    error = error if isinstance(error, dict) else {}
    reason = error.get("reason")
    if reason not in tool.entry.get("rejection_reasons", []):
        reason = default_reason
    refusal = Refusal("business_rejected", "a business rule refused the request", reason=reason)
    if isinstance(error.get("field"), str) and error["field"] in tool.declared_in:
        refusal.details["field"] = error["field"]
    return refusal


def in_progress(retry_after_ms):
    return Refusal("operation_in_progress", "another attempt of this business request is still in progress",
                   retry_after_ms=max(100, retry_after_ms))


def succeed(result, meta):
    return {"ok": True, "result": result, "meta": dict(meta)}


def fail(refusal, meta):
    return {"ok": False, "error": refusal.body(), "meta": dict(meta)}


def replay(stored, meta):
    if stored is None:
        return fail(Refusal("internal_error", "the idempotency store failed", reason="store_failed"), meta)
    answer = {"ok": stored["ok"], "meta": dict(meta, replayed=True)}
    answer["meta"].pop("reconciled", None)
    if stored["meta"].get("reconciled"):
        answer["meta"]["reconciled"] = True
    answer["result" if stored["ok"] else "error"] = stored["result" if stored["ok"] else "error"]
    return answer


# ---- the protocol loop --------------------------------------------------------------------------------------

class Wire:
    def __init__(self):
        self.lock = threading.Lock()

    def send(self, message):
        line = json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n"
        with self.lock:
            sys.stdout.write(line)
            sys.stdout.flush()


def log(text):
    print("callproof-executor.py: " + text, file=sys.stderr, flush=True)


def main():
    wire = Wire()
    first = sys.stdin.readline()
    try:
        hello = json.loads(first)
        if hello.get("type") != "hello":
            raise ValueError("the first message must be hello")
        if hello.get("protocol") != PROTOCOL:
            raise ValueError("protocol %r is not supported; this executor speaks %s" % (hello.get("protocol"),
                                                                                         PROTOCOL))
        executor = Executor(hello)
    except Exception as error:  # tell the harness, then stop
        wire.send({"type": "error", "message": str(error)})
        log(str(error))
        return 1
    wire.send({"type": "capabilities", "protocol": PROTOCOL, "name": NAME,
               "version": "0.1.0", "tools": sorted(executor.tools), "features": ["pause"]})
    log("serving session %s against %s" % (hello.get("session"), hello.get("downstream_url")))

    def serve(message, received):
        try:
            envelope = executor.execute(message, received)
        except Exception as error:  # a message the executor could not even start on: nothing was sent
            log("internal error: %r" % (error,))
            meta = {"request_id": executor.next_request_id(), "call_id": message["call"]["call_id"],
                    "attempt": message["attempt"], "replayed": False}
            envelope = fail(Refusal("internal_error", "the executor failed unexpectedly", sent=False), meta)
        wire.send({"type": "result", "id": message["id"], "envelope": envelope})

    with ThreadPoolExecutor(max_workers=64) as pool:
        for line in sys.stdin:
            received = time.monotonic()
            try:
                message = json.loads(line)
                if message.get("type") != "execute":
                    raise ValueError("unexpected message type %r" % message.get("type"))
            except Exception as error:
                wire.send({"type": "error", "message": "cannot read the message: %s" % error})
                continue
            pool.submit(serve, message, received)
    return 0


if __name__ == "__main__":
    sys.exit(main())
