#!/usr/bin/env python3
"""The callproof conformance app as an MCP server, written the way the official Python SDK teaches.

Six tools registered with `@mcp.tool()`, their arguments typed with pydantic, their results declared as
`Annotated[CallToolResult, Envelope[...]]`. Argument decoding is the SDK's own and is deliberately left as
the SDK ships it (JSON parsing, pydantic's lax mode, unknown fields ignored): that default is what callproof
measures. The trusted context arrives as docs/mcp.md defines it: over stdio in the request's
`_meta["io.callproof/context"]`, over Streamable HTTP as a bearer JWT (HS256) that a `TokenVerifier` checks.
Everything after decoding (authorization, idempotency, business rules, the downstream, output validation,
the envelope) is the pipeline of examples/python, imported rather than copied.

    python3 examples/mcp-python/server.py           # stdio
    python3 examples/mcp-python/server.py --http    # Streamable HTTP at CALLPROOF_MCP_URL
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, TypeVar
from urllib.parse import urlsplit

import jwt
from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import AnyHttpUrl, BaseModel, Field

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
import callproof_executor as app  # noqa: E402  (the shared pipeline of examples/python)

CONTEXT_KEY = "io.callproof/context"
ISSUER = "callproof"
DEFAULT_BUDGET_MS = 30_000
log = logging.getLogger("callproof-mcp-python")

# ---- the envelope as the tools' output type -----------------------------------------------------------------

ResultT = TypeVar("ResultT")


class ErrorBody(BaseModel):
    code: str
    category: str
    message: str
    retryable: bool
    resolution: str
    expose_to_model: bool
    expose_to_user: bool
    details: dict[str, Any]


class Meta(BaseModel):
    request_id: str
    call_id: str
    attempt: int
    idempotency_key: str | None = None
    replayed: bool
    reconciled: bool | None = None


class Envelope(BaseModel, Generic[ResultT]):
    """docs/envelope.schema.json: `result` when ok, `error` when not."""

    ok: bool
    result: ResultT | None = None
    error: ErrorBody | None = None
    meta: Meta


class Refund(BaseModel):
    refund_id: str
    order_id: str
    amount: int
    status: Literal["completed", "pending"]


class Order(BaseModel):
    order_id: str
    status: str
    refundable_amount: int
    note: str


class Weather(BaseModel):
    location: str
    temperature: float
    units: Literal["celsius", "fahrenheit"]
    summary: str


class Preference(BaseModel):
    key: str
    value: str


class Email(BaseModel):
    message_id: str
    status: Literal["sent", "queued"]


class Deletion(BaseModel):
    account_id: str
    deleted: bool


# ---- configuration: the catalog, the downstream, the token key ----------------------------------------------


def load_catalog() -> list[dict[str, Any]]:
    path = os.environ.get("CALLPROOF_CATALOG")
    if path:
        return json.loads(Path(path).read_text())
    folder = HERE.parent.parent / "scenarios" / "catalog"
    return [json.loads(file.read_text()) for file in sorted(folder.glob("*.json"))]


CATALOG = load_catalog()
_apps: dict[str, app.Executor] = {}
_apps_lock = threading.Lock()


def executor_for(downstream_url: str) -> app.Executor:
    """One pipeline (and idempotency store) per downstream: one per process unless a token names its own."""
    with _apps_lock:
        if downstream_url not in _apps:
            _apps[downstream_url] = app.Executor({"catalog": CATALOG, "downstream_url": downstream_url})
        return _apps[downstream_url]


class CallproofTokens(TokenVerifier):
    """Bearer JWTs signed by the harness: HS256, issuer `callproof`, audience this MCP endpoint."""

    def __init__(self, key: str, audience: str):
        self.key, self.audience = key.encode(), audience

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            claims = jwt.decode(token, self.key, algorithms=["HS256"], audience=self.audience, issuer=ISSUER,
                                options={"require": ["exp", "iat", "sub"]})
        except jwt.InvalidTokenError as error:
            log.info("refused a bearer token: %s", error)
            return None
        return AccessToken(token=token, client_id=ISSUER, scopes=str(claims.get("scope", "")).split(),
                           expires_at=int(claims["exp"]), resource=self.audience, subject=claims["sub"],
                           claims=claims)


MCP_URL = os.environ.get("CALLPROOF_MCP_URL", "http://127.0.0.1:8000/mcp")
TOKEN_KEY = os.environ.get("CALLPROOF_TOKEN_KEY")

if "--http" in sys.argv and TOKEN_KEY:
    mcp = MCPServer("callproof-mcp-python", version="0.1.0", token_verifier=CallproofTokens(TOKEN_KEY, MCP_URL),
                    auth=AuthSettings(issuer_url=AnyHttpUrl("http://127.0.0.1/callproof"),
                                      resource_server_url=AnyHttpUrl(MCP_URL)))
else:
    mcp = MCPServer("callproof-mcp-python", version="0.1.0")


# ---- the trusted context and the pipeline -------------------------------------------------------------------


def auth_from_claims(claims: dict[str, Any]) -> dict[str, Any]:
    auth = {"subject_id": claims["sub"], "tenant_id": claims.get("tenant_id", ""),
            "scopes": str(claims.get("scope", "")).split(), "roles": list(claims.get("roles", [])),
            "identity": {"valid": True, "expires_at_ms": int(claims["exp"]) * 1000}}
    for name in ("allowed_tools", "approval"):
        if name in claims:
            auth[name] = claims[name]
    return auth


def answer(envelope: dict[str, Any]) -> CallToolResult:
    """The envelope as structured content, mirrored as text, with isError set when it is a failure."""
    text = json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=envelope,
                          is_error=not envelope["ok"])


def execute(tool_name: str, arguments: dict[str, Any], ctx: Context) -> CallToolResult:
    received = time.monotonic()
    call = (ctx.request_context.meta or {}).get(CONTEXT_KEY) or {}
    token = get_access_token()
    if token is not None:  # over HTTP the identity comes from the verified token only
        claims = token.claims or {}
        auth = auth_from_claims(claims)
        downstream = os.environ.get("CALLPROOF_DOWNSTREAM_URL") or claims.get("cp_downstream_url")
    else:
        auth = call.get("auth")
        downstream = os.environ.get("CALLPROOF_DOWNSTREAM_URL")
    executor = executor_for(downstream or "http://127.0.0.1:9")
    request_id = executor.next_request_id()
    meta = {"request_id": request_id, "call_id": str(call.get("call_id", "")), "attempt": call.get("attempt", 1),
            "replayed": False}
    if not isinstance(auth, dict):
        return answer(app.fail(app.Refusal("unauthorized", "no caller identity came with the call",
                                           reason="identity_invalid"), meta))
    deadline = received + call.get("budget_ms", DEFAULT_BUDGET_MS) / 1000
    text = app.canonical(arguments)
    try:
        envelope = executor.run_decoded(executor.tools[tool_name], arguments, text, app.sha256_hex(text), auth,
                                        call.get("business_request_id"), app.Context(request_id, auth, deadline),
                                        meta)
    except app.Refusal as refusal:
        envelope = app.fail(refusal, meta)
    return answer(envelope)


# ---- the six tools ------------------------------------------------------------------------------------------

OrderId = Annotated[str, Field(pattern=r"^ord_[A-Za-z0-9]+$", max_length=64)]


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                                      openWorldHint=True))
def refund_order(order_id: OrderId,
                 amount: Annotated[int | None, Field(ge=1, le=100_000_000)],
                 reason: Annotated[str, Field(min_length=1, max_length=200)],
                 ctx: Context) -> Annotated[CallToolResult, Envelope[Refund]]:
    """Refund part or all of an order (null amount: everything refundable). Financial."""
    return execute("refund_order", {"order_id": order_id, "amount": amount, "reason": reason}, ctx)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=True))
def get_order(order_id: OrderId, ctx: Context) -> Annotated[CallToolResult, Envelope[Order]]:
    """Read one of the caller's orders."""
    return execute("get_order", {"order_id": order_id}, ctx)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=True))
def get_weather(location: Annotated[str, Field(min_length=1, max_length=100)],
                units: Literal["celsius", "fahrenheit"] | None,
                ctx: Context) -> Annotated[CallToolResult, Envelope[Weather]]:
    """Current weather for a location (null units: celsius)."""
    return execute("get_weather", {"location": location, "units": units}, ctx)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True,
                                      openWorldHint=False))
def set_preference(key: Annotated[str, Field(pattern=r"^[a-z][a-z_]{0,63}$")],
                   value: Annotated[str, Field(max_length=256)],
                   ctx: Context) -> Annotated[CallToolResult, Envelope[Preference]]:
    """Set one of the caller's own preferences."""
    return execute("set_preference", {"key": key, "value": value}, ctx)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                                      openWorldHint=True))
def send_email(to: Annotated[str, Field(max_length=254)],
               subject: Annotated[str, Field(min_length=1, max_length=200)],
               body: Annotated[str, Field(max_length=10_000)],
               ctx: Context) -> Annotated[CallToolResult, Envelope[Email]]:
    """Send an email on the caller's behalf."""
    return execute("send_email", {"to": to, "subject": subject, "body": body}, ctx)


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False,
                                      openWorldHint=True))
def delete_account(account_id: Annotated[str, Field(pattern=r"^acct_[A-Za-z0-9]+$", max_length=64)],
                   ctx: Context) -> Annotated[CallToolResult, Envelope[Deletion]]:
    """Close an account for good; needs the user's approval of these exact arguments."""
    return execute("delete_account", {"account_id": account_id}, ctx)


def main() -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    if "--http" not in sys.argv:
        mcp.run()
        return
    url = urlsplit(MCP_URL)
    mcp.run(transport="streamable-http", host=url.hostname or "127.0.0.1", port=url.port or 80,
            streamable_http_path=url.path or "/mcp")


if __name__ == "__main__":
    main()
