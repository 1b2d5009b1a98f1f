#!/usr/bin/env python3
"""Throwaway evidence for docs/mcp-notes.md: what real SDK servers do with hostile MCP input.

Starts a server (stdio or Streamable HTTP), a tiny fake downstream with a ledger of committed refunds, sends
hand-framed JSON-RPC lines (so malformed text, duplicate keys and `100.0` reach the server byte for byte) and
prints every exact request and response, the ledger after each case, and whether the server still answers.
The Rust checks of `callproof mcp` are to find these same facts; this script only shows they are there.

    target/mcp-venv/bin/python examples/mcp-probe/probe.py python [--revision 2026-07-28] [--http]
    target/mcp-venv/bin/python examples/mcp-probe/probe.py typescript [--http]
"""

import argparse
import http.client
import json
import os
import queue
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import jwt

ROOT = Path(__file__).resolve().parents[2]
SERVERS = {
    "python": [str(ROOT / "target/mcp-venv/bin/python"), str(ROOT / "examples/mcp-python/server.py")],
    "typescript": ["node", str(ROOT / "examples/mcp-typescript/dist/server.js")],
}
ALICE = {"subject_id": "u_alice", "tenant_id": "t_acme", "scopes": ["refunds:write", "orders:read"], "roles": [],
         "identity": {"valid": True}}
ORDERS = {"ord_123": {"order_id": "ord_123", "tenant_id": "t_acme", "owner_id": "u_alice", "status": "delivered",
                      "refundable_amount": 100, "note": "Customer asked about delivery."}}


# ---- the fake downstream ------------------------------------------------------------------------------------

class Downstream(ThreadingHTTPServer):
    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.ledger = []
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server_address[1]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.startswith("/orders/") and self.path[8:] in ORDERS:
            return self.reply(200, ORDERS[self.path[8:]])
        self.reply(404, {"status": "not_found"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path != "/refunds":
            return self.reply(404, {})
        refund = {"refund_id": "rf_%d" % (len(self.server.ledger) + 1), "order_id": body.get("order_id"),
                  "amount": body.get("amount") or 100, "status": "completed"}
        self.server.ledger.append({"body": body, "idempotency_key": self.headers.get("Idempotency-Key")})
        self.reply(201, refund)


# ---- framing: stdio lines and HTTP POSTs ----------------------------------------------------------------------

class Stdio:
    def __init__(self, command, env):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read, args=(self.process.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, self.stderr.append), daemon=True).start()

    @staticmethod
    def _read(stream, sink):
        for line in stream:
            sink(line.decode("utf-8", "replace").rstrip("\n"))

    def send(self, text, token=None):
        try:
            self.process.stdin.write(text.encode("utf-8", "surrogatepass") + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            return ["(write failed: %s)" % error]
        return []

    def collect(self, until_id=None, timeout=3.0):
        seen, end = [], time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            try:
                if until_id is not None and json.loads(line).get("id") == until_id:
                    end = min(end, time.monotonic() + 0.2)  # a short grace for a late parse error
            except ValueError:
                pass
        return seen

    def alive(self):
        return self.process.poll() is None

    def close(self):
        self.process.kill()
        self.process.wait()


class Http:
    def __init__(self, url, key):
        self.url, self.key, self.session = urlsplit(url), key, None
        self.pending = []
        self.override = {}

    def token(self, **changes):
        now = int(time.time())
        claims = {"iss": "callproof", "aud": self.url.geturl(), "sub": ALICE["subject_id"], "iat": now,
                  "exp": now + 300, "jti": secrets.token_hex(8), "scope": " ".join(ALICE["scopes"]),
                  "tenant_id": ALICE["tenant_id"], "roles": []}
        key = changes.pop("key", self.key)
        claims.update(changes)
        return jwt.encode(claims, key, algorithm="HS256")

    def send(self, text, token=None, version="2025-11-25"):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": version, "Authorization": "Bearer " + (token or self.token())}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        if version == "2026-07-28":  # the request headers the modern transport requires
            # read from the text, not a parse: the body may be malformed or too deep on purpose
            for header, pattern in (("Mcp-Method", r'"method":"([^"]+)"'), ("Mcp-Name", r'"params":\{"name":"([^"]+)"')):
                found = re.search(pattern, text[:4096])
                if found:
                    headers[header] = found.group(1)
            headers.update(self.override)
        connection = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=5)
        try:
            connection.request("POST", self.url.path, body=text.encode("utf-8", "surrogatepass"), headers=headers)
            response = connection.getresponse()
            body = response.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as error:
            self.pending = ["(no answer: %s)" % error]
            return []
        finally:
            connection.close()
        self.session = response.getheader("mcp-session-id") or self.session
        www = response.getheader("www-authenticate")
        head = "HTTP %d %s" % (response.status, response.getheader("content-type") or "")
        self.pending = [head + ("; WWW-Authenticate: " + www if www else "")]
        for line in body.splitlines():
            if line.startswith("data:"):
                self.pending.append(line[5:].strip())
            elif line.strip() and not line.startswith(("event:", "id:", "retry:")):
                self.pending.append(line)
        return []

    def collect(self, until_id=None, timeout=3.0):
        seen, self.pending = self.pending, []
        return seen

    def alive(self):
        return True

    def close(self):
        pass


# ---- the cases ----------------------------------------------------------------------------------------------

class Probe:
    def __init__(self, peer, downstream, revision, http_mode):
        self.peer, self.downstream, self.revision, self.http = peer, downstream, revision, http_mode
        self.next_id = 100

    def meta(self, auth=True):
        context = {"call_id": "call_%d" % self.next_id, "business_request_id": "br_%d" % self.next_id,
                   "attempt": 1, "budget_ms": 5000}
        if auth and not self.http:
            context["auth"] = ALICE
        meta = {"io.callproof/context": context}
        if self.revision == "2026-07-28":
            meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
            meta["io.modelcontextprotocol/clientCapabilities"] = {}
        return meta

    def call_line(self, name, raw_arguments, meta=None):
        self.next_id += 1
        meta = json.dumps(meta if meta is not None else self.meta(), separators=(",", ":"))
        return self.next_id, ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"_meta":%s,'
                              '"arguments":%s}}' % (self.next_id, json.dumps(name), meta, raw_arguments))

    def liveness(self):
        self.next_id += 1
        if self.revision == "2026-07-28":
            params = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                "io.modelcontextprotocol/clientCapabilities": {}}}
            line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "server/discover", "params": params})
        else:
            line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "ping"})
        self.peer.send(line, version=self.revision) if self.http else self.peer.send(line)
        answers = self.peer.collect(self.next_id, timeout=3)
        return any('"id":%d' % self.next_id in answer.replace(" ", "") for answer in answers)

    def case(self, title, line, until_id=None, token=None, show=600):
        before = len(self.downstream.ledger)
        if self.http:
            self.peer.send(line, token=token, version=self.revision)
        else:
            self.peer.send(line)
        answers = self.peer.collect(until_id, timeout=3)
        committed = self.downstream.ledger[before:]
        alive = self.peer.alive() and self.liveness()
        exited = "" if self.peer.alive() else " (the process exited with code %s)" % self.peer.process.poll()
        print("### %s" % title)
        print("→ " + (line if len(line) <= show else line[:show] + "… (%d bytes)" % len(line)))
        for answer in answers or ["(no answer within 3 s)"]:
            print("← " + (answer if len(answer) <= 1500 else answer[:1500] + "…"))
        print("ledger: %s" % (json.dumps([entry["body"] for entry in committed]) if committed else "nothing committed"))
        print("still answers: %s%s\n" % ("yes" if alive else "NO", exited))

    def handshake(self):
        if self.revision == "2026-07-28":
            return
        line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": self.revision, "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}})
        self.peer.send(line)
        print("handshake: " + " ".join(self.peer.collect(1, timeout=5)))
        self.peer.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        self.peer.collect(timeout=0.2)

    def run(self):
        self.handshake()
        ok = '{"order_id":"ord_123","amount":10,"reason":"damaged"}'
        self.case("a valid call (baseline)", *self.swap(self.call_line("refund_order", ok)))
        self.case("malformed JSON line (truncated)", '{"jsonrpc":"2.0","id":7,"method":"tools/list"')
        self.case("valid JSON, not a request (method is a number)", '{"jsonrpc":"2.0","id":8,"method":5}', 8)
        params = json.dumps({"_meta": {key: value for key, value in self.meta().items() if key != "io.callproof/context"}})
        self.case("unknown method", '{"jsonrpc":"2.0","id":9,"method":"callproof/nonexistent","params":%s}' % params, 9)
        self.case("unknown tool", *self.swap(self.call_line("refund_orders", ok)))
        self.case("arguments not an object", *self.swap(self.call_line("refund_order", '"ord_123"')))
        self.case("duplicate key: amount 10 then 90",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","amount":10,"amount":90,'
                                                           '"reason":"dup"}')))
        self.case('"100" for an integer',
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","amount":"100","reason":"x"}')))
        self.case("100.0 for an integer",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","amount":100.0,"reason":"x"}')))
        self.case("1e2 for an integer",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","amount":1e2,"reason":"x"}')))
        self.case("true for an integer",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","amount":true,"reason":"x"}')))
        self.case("NaN for an integer",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","amount":NaN,"reason":"x"}')))
        self.case("unknown field is_admin",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","amount":5,"reason":"x",'
                                                           '"is_admin":true}')))
        self.case("missing required field (amount)",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","reason":"x"}')))
        self.case("pattern violation",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ORD-1","amount":5,"reason":"x"}')))
        deep = '{"order_id":"ord_123","amount":5,"reason":' + "[" * 100000 + "]" * 100000 + "}"
        self.case("100 000-deep nesting in a string field", *self.swap(self.call_line("refund_order", deep)))
        self.case("lone surrogate escape in a string",
                  *self.swap(self.call_line("refund_order", '{"order_id":"ord_123","amount":5,"reason":"\\ud800"}')))
        self.case("a tool that throws (trusted context without `identity`)",
                  *self.swap(self.call_line("refund_order", ok, meta=self.broken_meta())))
        if self.http:
            self.case("HTTP: bearer token with a bad signature", *self.swap(self.call_line("refund_order", ok)),
                      token=self.peer.token(key=secrets.token_urlsafe(32)))
            self.case("HTTP: expired bearer token", *self.swap(self.call_line("refund_order", ok)),
                      token=self.peer.token(exp=int(time.time()) - 60))
            self.case('HTTP: alg "none" token', *self.swap(self.call_line("refund_order", ok)),
                      token=jwt.encode({"sub": "u_alice", "iss": "callproof"}, None, algorithm="none"))
        if self.http and self.revision == "2026-07-28":
            self.peer.override = {"Mcp-Name": "get_weather"}
            self.case("HTTP 2026-07-28: Mcp-Name header says get_weather, the body refund_order",
                      *self.swap(self.call_line("refund_order", ok)))
            self.peer.override = {}
        big = '{"order_id":"ord_123","amount":5,"reason":"' + "x" * (11 * 1024 * 1024) + '"}'
        self.case("an 11 MiB line", *self.swap(self.call_line("refund_order", big)))

    def broken_meta(self):
        meta = self.meta()
        if self.http:
            return meta
        meta["io.callproof/context"]["auth"] = {"subject_id": "u_alice", "tenant_id": "t_acme", "scopes": [],
                                                "roles": []}
        return meta

    @staticmethod
    def swap(pair):
        request_id, line = pair
        return line, request_id


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not listen on port %d within %.0f s" % (port, timeout))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("server", choices=sorted(SERVERS))
    parser.add_argument("--revision", default="2025-11-25", choices=["2025-11-25", "2026-07-28"])
    parser.add_argument("--http", action="store_true")
    options = parser.parse_args()
    downstream = Downstream()
    env = dict(os.environ, CALLPROOF_DOWNSTREAM_URL=downstream.url, CALLPROOF_SESSION="probe")
    print("server: %s, revision %s, transport %s\n" % (options.server, options.revision,
                                                       "Streamable HTTP" if options.http else "stdio"))
    if options.http:
        url = "http://127.0.0.1:%d/mcp" % free_port()
        key = secrets.token_urlsafe(32)
        env.update(CALLPROOF_MCP_URL=url, CALLPROOF_TOKEN_KEY=key)
        process = subprocess.Popen(SERVERS[options.server] + ["--http"], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        wait_for_port(urlsplit(url).port)
        peer = Http(url, key)
    else:
        process, peer = None, Stdio(SERVERS[options.server], env)
    try:
        Probe(peer, downstream, options.revision, options.http).run()
    finally:
        peer.close()
        if process is not None:
            process.kill()
    if not options.http:
        print("server stderr, last 15 lines:")
        for line in peer.stderr[-15:]:
            print("    " + line[:300])


if __name__ == "__main__":
    main()
