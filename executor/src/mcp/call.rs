//! `tools/call`: from the message to the executor's [`Request`], and from the envelope back to the answer.
//!
//! Rule enforced here: the text of `arguments` reaches the executor byte for byte; the trusted identity comes
//! from the transport's [`Trust`] (over HTTP the verified token, and `_meta`'s `auth` is ignored); an unknown
//! tool and arguments that are not an object still go through the executor's decoder (which checks the size
//! before the name), and the -32602 carries its envelope in `data.envelope` (docs/mcp.md).

use super::{INVALID_PARAMS, Refusal};
use crate::Executor;
use crate::app::catalog;
use crate::auth::AuthContext;
use crate::error::ErrorCode;
use crate::request::{Request, ToolCall};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

/// A call's budget when its `_meta` gives none.
const DEFAULT_BUDGET: Duration = Duration::from_secs(10);

/// Where a call's trusted identity comes from.
#[derive(Debug, Clone)]
pub enum Trust {
    /// stdio: the process owner is the caller, so `_meta["io.callproof/context"].auth` is trusted, and a call
    /// without one gets [`stdio_context`].
    Stdio,
    /// HTTP: the identity of the verified bearer token; an `auth` in `_meta` is ignored.
    Token(Box<AuthContext>),
}

/// `_meta["io.callproof/context"]`: the caller's bookkeeping and, over stdio, the trusted context.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Context {
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    business_request_id: Option<String>,
    #[serde(default)]
    attempt: Option<u32>,
    #[serde(default)]
    budget_ms: Option<u64>,
    #[serde(default)]
    auth: Option<AuthContext>,
}

/// The `params` of a message, kept as text.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

/// The `arguments` of `params`, kept as text.
#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// A `tools/call` ready for the executor.
#[derive(Debug)]
pub struct Call {
    /// The JSON-RPC id it is answered under.
    pub id: Value,
    /// What the executor runs.
    pub request: Request,
    /// The -32602 message when the params are not a `CallToolRequest` (arguments that are not an object),
    /// sent unless the executor somehow succeeds.
    pub refused: Option<String>,
    /// A 2026-07-28 request: the result carries `resultType` and the server's identity in `_meta`.
    pub modern: bool,
    /// What the answer is made of: a `CallToolResult`, or a shape of the Tasks extension ([`super::tasks`]).
    pub shape: Shape,
}

/// The answer a [`Call`]'s envelope goes into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A `CallToolResult`.
    Tool,
    /// A task submission from a client that declared the Tasks extension: a `CreateTaskResult` when the
    /// submission succeeded, else the `CallToolResult` of its refusal.
    Submit,
    /// `tasks/get` of this handle (the poll tool's envelope as a task).
    Get(String),
    /// `tasks/cancel` of this handle (an empty acknowledgement).
    Cancel(String),
}

impl Call {
    /// Runs the call and gives its JSON-RPC answer: a `CallToolResult` holding the envelope, or -32602 with the
    /// envelope in `data.envelope` for an unknown tool or arguments that are not an object.
    pub async fn run(self, executor: &Executor) -> Value {
        let Call { id, request, refused, modern, shape } = self;
        let name = request.call.name.clone();
        let envelope = executor.execute(request).await;
        if shape != Shape::Tool
            && let Some(answer) = super::tasks::answer(&id, &shape, &envelope)
        {
            return answer;
        }
        let unknown = envelope.code() == Some(ErrorCode::ToolNotFound);
        let envelope = envelope.to_json();
        let message = match refused {
            Some(why) if envelope.get("ok") != Some(&Value::Bool(true)) => Some(why),
            _ if unknown => Some(format!("Invalid params: unknown tool {name:?}")),
            _ => None,
        };
        match message {
            Some(message) => json!({"jsonrpc": "2.0", "id": id, "error":
                {"code": INVALID_PARAMS, "message": message, "data": {"envelope": envelope}}}),
            None if modern => {
                json!({"jsonrpc": "2.0", "id": id, "result": super::modern::complete(tool_result(envelope))})
            }
            None => json!({"jsonrpc": "2.0", "id": id, "result": tool_result(envelope)}),
        }
    }
}

/// The executor's request for a `tools/call` message (`text`, already parsed as `message`), or why it is not
/// a `CallToolRequest` at all.
pub(super) fn call(text: &str, message: &Value, id: &Value, trust: Trust) -> Result<Call, Refusal> {
    let invalid = |why: String| Refusal(INVALID_PARAMS, format!("Invalid params: {why}"));
    let Some(params) = message.get("params").and_then(Value::as_object) else {
        return Err(invalid("params is not an object".to_owned()));
    };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(invalid("name is not a string".to_owned()));
    };
    let raw: Line<'_> = serde_json::from_str(text).map_err(|error| invalid(error.to_string()))?;
    let arguments = match raw.params.map(|params| serde_json::from_str::<CallParams<'_>>(params.get())) {
        Some(Ok(CallParams { arguments: Some(arguments) })) => arguments.get().to_owned(),
        // `Option` reads `null` as absent: an explicit `"arguments": null` is not an object, not `{}`.
        Some(Ok(CallParams { arguments: None })) if params.get("arguments").is_some() => "null".to_owned(),
        Some(Ok(CallParams { arguments: None })) | None => "{}".to_owned(),
        Some(Err(error)) => return Err(invalid(error.to_string())),
    };
    let refused =
        (!arguments.trim_start().starts_with("{")).then(|| "Invalid params: arguments is not an object".to_owned());
    let request = prepared(params, id, trust, name, arguments)?;
    Ok(Call { id: id.clone(), request, refused, modern: false, shape: Shape::Tool })
}

/// The executor's request for tool `name` with the raw `arguments`, under the context of `params._meta` and
/// the identity `trust` gives.
pub(super) fn prepared(
    params: &serde_json::Map<String, Value>,
    id: &Value,
    trust: Trust,
    name: &str,
    arguments: String,
) -> Result<Request, Refusal> {
    let invalid = |why: String| Refusal(INVALID_PARAMS, format!("Invalid params: {why}"));
    let context = match params.get("_meta").and_then(|meta| meta.get("io.callproof/context")) {
        None => Context::default(),
        Some(context) => {
            let mut context = context.clone();
            if let (Trust::Token(_), Some(members)) = (&trust, context.as_object_mut()) {
                // Over HTTP the identity is the token's: a forged `auth` here must change nothing.
                members.remove("auth");
            }
            Context::deserialize(&context)
                .map_err(|error| invalid(format!("_meta[\"io.callproof/context\"]: {error}")))?
        }
    };
    let auth = match trust {
        Trust::Token(auth) => *auth,
        Trust::Stdio => context.auth.unwrap_or_else(stdio_context),
    };
    let call_id = context.call_id.unwrap_or_else(|| format!("mcp_{}", id.to_string().trim_matches('"')));
    Ok(Request {
        call: ToolCall::raw(call_id, name, arguments),
        auth,
        business_request_id: context.business_request_id,
        attempt: context.attempt.unwrap_or(1),
        budget: context.budget_ms.map_or(DEFAULT_BUDGET, Duration::from_millis),
        request_id: None,
        trace_id: None,
    })
}

/// The trusted context of a stdio call whose `_meta` carries none: the user who started the process (MCP:
/// stdio credentials come from the environment that launched the server), with every scope the catalog names
/// and no approval, so approval-bound tools still refuse.
pub fn stdio_context() -> AuthContext {
    let scopes: BTreeSet<String> = catalog().into_iter().flat_map(|entry| entry.spec.required_scopes).collect();
    let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
    AuthContext::new("stdio_user", "stdio_tenant", &scopes)
}

/// The `CallToolResult` of an envelope: the envelope as `structuredContent` and as one text block, and
/// `isError` exactly when the envelope is a failure.
pub fn tool_result(envelope: Value) -> Value {
    let failed = envelope.get("ok") != Some(&Value::Bool(true));
    json!({
        "content": [{"type": "text", "text": envelope.to_string()}],
        "structuredContent": envelope,
        "isError": failed,
    })
}
