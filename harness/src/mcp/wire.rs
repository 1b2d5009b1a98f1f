//! The `tools/call` line of one call and how its answer is read back (docs/mcp.md, "A call" and "The answer"),
//! over stdio and over Streamable HTTP (where the status speaks when the body holds no JSON-RPC response).
//!
//! Rule enforced here: the model's argument text is spliced into the line byte for byte (never re-encoded), the
//! trusted context travels only in `_meta["io.callproof/context"]`, and an answer is an envelope only when the
//! server gave one (`structuredContent`, its text block, or `data.envelope`) or when the JSON-RPC error stands
//! for a refusal docs/mcp.md names; anything else is read as no envelope, never guessed into one.

use super::http::Posted;
use crate::protocol::{self, excerpt};
use crate::subject::{Reply, SubjectCall};
use crate::transcript::Refusal;
use callproof_executor::app::catalog;
use callproof_executor::envelope::{Envelope, Meta};
use callproof_executor::error::{ErrorBody, ErrorCode};
use callproof_executor::request::Arguments;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The `_meta` key of the call's context.
pub const CONTEXT_KEY: &str = "io.callproof/context";

/// The `tools/call` line of a call: `arguments` last, as the raw text itself (docs/mcp.md, "Raw argument
/// text"). A raw text's CR and LF are sent as TAB, which JSON reads alike (whitespace outside strings, a
/// forbidden control character inside), because a newline would end the message.
#[cfg(test)]
pub(crate) fn call_line(id: i64, call: &SubjectCall) -> String {
    call_line_in(id, call, Era::Legacy)
}

/// What a request's `_meta` says besides the call's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2025-11-25: nothing.
    Legacy,
    /// 2026-07-28: the protocol version and the client's capabilities.
    Modern,
    /// 2026-07-28, declaring the Tasks extension (super::task_calls).
    ModernTasks,
}

impl Era {
    /// The `_meta` members of this era.
    pub(crate) fn meta(self) -> serde_json::Map<String, Value> {
        match self {
            Era::Legacy => serde_json::Map::new(),
            Era::Modern => super::revision::meta(super::revision::MODERN),
            Era::ModernTasks => super::revision::meta_with_tasks(super::revision::MODERN),
        }
    }
}

/// `_meta["io.callproof/context"]` of a call: its ids, attempt, budget and (over stdio) trusted `auth`.
pub(crate) fn context(call: &SubjectCall, with_auth: bool) -> Value {
    let mut context = json!({
        "call_id": call.call.call_id,
        "business_request_id": call.business_request_id,
        "attempt": call.attempt,
        "budget_ms": u64::try_from(call.budget.as_millis()).unwrap_or(u64::MAX),
    });
    if with_auth {
        context["auth"] = auth_of(call);
    }
    context
}

/// [`call_line`], with the `_meta` of `era`.
pub(crate) fn call_line_in(id: i64, call: &SubjectCall, era: Era) -> String {
    call_line_with(id, call, era, auth_of(call))
}

/// The `tools/call` line of `call` in `era`, its context's `auth` being `auth`.
fn call_line_with(id: i64, call: &SubjectCall, era: Era, auth: Value) -> String {
    let mut context = context(call, false);
    context["auth"] = auth;
    let arguments = match &call.call.arguments {
        Arguments::Raw(text) => text.replace(['\r', '\n'], "\t"),
        Arguments::Value(value) => value.to_string(),
    };
    let head = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}).to_string();
    let name = Value::String(call.call.name.clone());
    let mut meta = era.meta();
    if era != Era::Legacy {
        // Every log message of the call, for `no-secret-leak`: a 2026-07-28 server sends only those asked for.
        meta.insert(super::revision::META_LOG_LEVEL.to_owned(), json!("debug"));
    }
    meta.insert(CONTEXT_KEY.to_owned(), context);
    let meta = Value::Object(meta);
    format!("{},\"params\":{{\"name\":{name},\"_meta\":{meta},\"arguments\":{arguments}}}}}", &head[..head.len() - 1])
}

/// `execute.auth` of `callproof/1`, exactly as that protocol writes it.
fn auth_of(call: &SubjectCall) -> Value {
    let line = protocol::execute(String::new(), call.clone()).to_line();
    serde_json::from_str::<Value>(&line)
        .ok()
        .and_then(|mut execute| execute.get_mut("auth").map(Value::take))
        .unwrap_or(Value::Null)
}

/// What a dropped line reads as: no envelope at all (`envelope-schema` and the refusal checks fail on it).
pub(crate) fn dropped(line: &str) -> Value {
    json!({"mcp": "dropped", "why": "the server sent no answer to a line that is not JSON and answered the ping after it", "line": excerpt(line, 200)})
}

/// One answer read as docs/mcp.md's table says; `Err` is a protocol break. A -32700 to a call whose argument
/// text is not JSON (nor, nested past serde_json's 128 levels, JSON any common parser reads) is the refusal the
/// spec prescribes and comes back as one ([`Reply::refusal`]); a -32700 to a text that is JSON is no refusal at
/// all, since the line the server failed to parse was valid, and reads as no envelope.
pub(crate) fn read_answer(
    message: &Value,
    call: &SubjectCall,
    id: i64,
    tools: &BTreeSet<String>,
) -> Result<Reply, String> {
    if let Some(result) = message.get("result") {
        if result.get("resultType").and_then(Value::as_str) == Some("task") {
            return Ok(super::task_calls::created(result).into());
        }
        return Ok(envelope_of_result(result).into());
    }
    let error = message.get("error").unwrap_or(&Value::Null);
    if let Some(envelope) = error.pointer("/data/envelope").filter(|envelope| is_envelope(envelope)) {
        return Ok(envelope.clone().into());
    }
    let code = error.get("code").and_then(Value::as_i64);
    let refused = match code {
        Some(-32700) if text_is_json(call) => {
            let why = "a JSON-RPC parse error (-32700) to a tools/call whose line is valid JSON";
            return Ok(json!({"mcp": "parse error to valid JSON", "why": why, "error": error}).into());
        }
        Some(-32700) => ErrorCode::InvalidJson,
        Some(-32600) => ErrorCode::InvalidArguments,
        Some(-32602) if !tools.contains(&call.call.name) => ErrorCode::ToolNotFound,
        Some(-32602) => ErrorCode::InvalidArguments,
        Some(-32601) => {
            return Err(format!(
                "it answered tools/call with -32601 (method not found): {}",
                excerpt(&message.to_string(), 300)
            ));
        }
        _ => ErrorCode::InternalError,
    };
    let shown = code.map_or_else(|| "without a code".to_owned(), |code| code.to_string());
    // The one detail the harness knows without the server: the name it sent. The details of the other codes
    // (where the text broke, why the arguments were refused) are the server's to give in `data.envelope`.
    let details = if refused == ErrorCode::ToolNotFound {
        vec![("tool", Value::String(call.call.name.chars().take(64).collect()))]
    } else {
        Vec::new()
    };
    let value = built(call, id, refused, &format!("the server answered with JSON-RPC error {shown}"), details);
    let refusal = (code == Some(-32700)).then(Refusal::parse_error);
    Ok(Reply::built(value, refusal))
}

/// A failure envelope the harness builds for an answer that stands for one: `meta` from the call and the
/// JSON-RPC id (`request_id` `jsonrpc-<id>`), `details` only what the harness knows.
pub(crate) fn built(call: &SubjectCall, id: i64, code: ErrorCode, message: &str, details: Vec<(&str, Value)>) -> Value {
    let meta = Meta {
        request_id: format!("jsonrpc-{id}"),
        call_id: call.call.call_id.clone(),
        attempt: call.attempt,
        idempotency_key: None,
        replayed: false,
        reconciled: false,
    };
    let mut body = ErrorBody::new(code, message);
    for (name, value) in details {
        body = body.with(name, value);
    }
    Envelope::failure(body, meta).to_json()
}

/// The call's arguments as JSON, when they are.
pub(crate) fn arguments_json(call: &SubjectCall) -> Option<Value> {
    match &call.call.arguments {
        Arguments::Raw(text) => serde_json::from_str(text).ok(),
        Arguments::Value(value) => Some(value.clone()),
    }
}

/// Whether the call's argument text is JSON as serde_json reads it (RFC 8259, at most 128 levels deep).
pub(crate) fn text_is_json(call: &SubjectCall) -> bool {
    match &call.call.arguments {
        Arguments::Raw(text) => serde_json::from_str::<Value>(text).is_ok(),
        Arguments::Value(_) => true,
    }
}

/// The envelope of a `CallToolResult`: `structuredContent`, else the first text block; the result itself (no
/// envelope) when neither is one, or when `isError` contradicts the envelope's `ok`.
fn envelope_of_result(result: &Value) -> Value {
    let text = || {
        let text = result.pointer("/content/0/text")?.as_str()?;
        serde_json::from_str::<Value>(text).ok().filter(is_envelope)
    };
    let envelope = result.get("structuredContent").filter(|content| is_envelope(content)).cloned().or_else(text);
    let Some(envelope) = envelope else { return json!({"mcp": "no envelope", "result": result}) };
    let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
    if envelope.get("ok").and_then(Value::as_bool) == Some(is_error) {
        return json!({"mcp": "isError contradicts the envelope's ok", "result": result});
    }
    envelope
}

fn is_envelope(value: &Value) -> bool {
    value.get("ok").is_some_and(Value::is_boolean)
}

/// The `tools/call` line over HTTP: as over stdio, but the token carries the caller, and the context's `auth` is
/// a forged one ([`forged_auth`]) that a server must ignore.
#[cfg(test)]
pub(crate) fn http_call_line(id: i64, call: &SubjectCall) -> String {
    http_call_line_in(id, call, Era::Legacy)
}

/// [`http_call_line`], with the `_meta` of `era`.
pub(crate) fn http_call_line_in(id: i64, call: &SubjectCall, era: Era) -> String {
    call_line_with(id, call, era, forged_auth(call))
}

/// The `auth` an HTTP call's context carries: the caller's, with every scope the catalog requires, the role
/// `support_admin`, no tool allow-list and an identity that is valid and never expires. Over HTTP the caller is
/// the token's (docs/mcp.md: an `auth` in the context MUST be ignored), so a server that reads this one instead
/// passes what the scenarios refuse: a missing scope, another owner's resource, an expired or invalid identity.
fn forged_auth(call: &SubjectCall) -> Value {
    static SCOPES: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    let scopes = SCOPES.get_or_init(|| {
        let scopes: BTreeSet<String> = catalog().into_iter().flat_map(|entry| entry.spec.required_scopes).collect();
        json!(scopes)
    });
    let mut auth = auth_of(call);
    auth["scopes"] = scopes.clone();
    let mut roles: BTreeSet<String> =
        auth["roles"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
    roles.insert("support_admin".to_owned());
    auth["roles"] = json!(roles);
    auth["identity"] = json!({"valid": true});
    if let Some(members) = auth.as_object_mut() {
        members.remove("allowed_tools");
    }
    auth
}

/// How a JSON-RPC answer is read: [`read_answer`] for a `tools/call`, `task_calls::read_task` for a task request.
pub(crate) type Reader = fn(&Value, &SubjectCall, i64, &BTreeSet<String>) -> Result<Reply, String>;

/// What one POST's response says about a call, as docs/mcp.md's table reads it (its JSON-RPC answer by
/// `reader`); `Err` is a protocol break.
pub(crate) fn read_posted(
    posted: &Posted,
    call: &SubjectCall,
    id: i64,
    (tools, reader): (&BTreeSet<String>, Reader),
    line: &str,
) -> Result<Reply, String> {
    let answers = |message: &&Value| {
        let is_response = message.get("result").is_some() || message.get("error").is_some();
        let id_matches = message.get("id") == Some(&json!(id));
        let null_error = message.get("id").is_none_or(Value::is_null) && message.get("error").is_some();
        is_response && (id_matches || null_error)
    };
    if let Some(message) = posted.messages.iter().find(answers) {
        return reader(message, call, id, tools);
    }
    let status = posted.status;
    let json = text_is_json(call);
    let refused = |code: ErrorCode, why: &str, details: Vec<(&str, Value)>| {
        Reply::built(built(call, id, code, why, details), None)
    };
    Ok(match status {
        401 => match identity_fault(call) {
            Some(reason) => refused(ErrorCode::Unauthorized, "HTTP 401", vec![("reason", json!(reason))]),
            None => json!({"mcp": "HTTP 401 to a valid token", "body": excerpt(&posted.body, 300)}).into(),
        },
        403 if posted.authenticate.as_deref().is_some_and(|value| value.contains("insufficient_scope")) => {
            let scopes = posted.authenticate.as_deref().and_then(scope_parameter).unwrap_or_default();
            let scopes: Vec<&str> = scopes.split_whitespace().collect();
            let details = vec![("reason", json!("missing_scope")), ("required_scopes", json!(scopes))];
            refused(ErrorCode::Forbidden, "HTTP 403 insufficient_scope", details)
        }
        400 | 413 if !json => {
            let value = built(call, id, ErrorCode::InvalidJson, &format!("HTTP {status}"), Vec::new());
            Reply::built(value, Some(crate::transcript::Refusal::http_status(status)))
        }
        // A body too large for the server's HTTP layer, its text JSON or not: refused before any tool ran, as
        // docs/mcp.md's table says. A text within the 1 MiB limit refused so fails the call's pins, not the run.
        413 => {
            let value = built(call, id, ErrorCode::InvalidArguments, "HTTP 413", vec![("reason", json!("too_large"))]);
            Reply::built(value, Some(crate::transcript::Refusal::too_large()))
        }
        200..=299 if !json => dropped(line).into(),
        _ => {
            return Err(format!(
                "it answered request {id} with HTTP {status} and no JSON-RPC response: {}",
                excerpt(&posted.body, 200)
            ));
        }
    })
}

/// The identity fault the scenario injected into the call's token, as `details.reason` names it.
fn identity_fault(call: &SubjectCall) -> Option<&'static str> {
    if !call.auth.identity.valid {
        return Some("identity_invalid");
    }
    let expired = call.auth.identity.expires_at_ms.is_some_and(|expires_at_ms| expires_at_ms / 1000 <= now_s());
    expired.then_some("identity_expired")
}

/// The `scope="..."` parameter of a `WWW-Authenticate: Bearer` header (RFC 6750 §3).
fn scope_parameter(header: &str) -> Option<String> {
    let (_, rest) = header.split_once("scope=\"")?;
    rest.split_once('"').map(|(scope, _)| scope.to_owned())
}

/// Now, in Unix seconds.
pub(crate) fn now_s() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_secs())
}

/// A call for the MCP modules' unit tests: `call_1` of `u_alice` (tenant `t_acme`), business request `br_1`,
/// attempt 2, a 1.5 s budget.
#[cfg(test)]
pub(crate) fn subject_call(name: &str, text: &str) -> SubjectCall {
    SubjectCall {
        call: callproof_executor::ToolCall::raw("call_1", name, text),
        auth: callproof_executor::AuthContext::new("u_alice", "t_acme", &["refunds:write"]),
        business_request_id: Some("br_1".into()),
        attempt: 2,
        budget: std::time::Duration::from_millis(1500),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> BTreeSet<String> {
        ["refund_order".to_owned()].into_iter().collect()
    }

    #[test]
    fn the_raw_text_is_spliced_last_with_the_context_in_meta() {
        let line = call_line(7, &subject_call("refund_order", r#"{"amount":1,"amount":2.0}"#));
        assert!(line.ends_with(r#","arguments":{"amount":1,"amount":2.0}}}"#), "{line}");
        let message: Value = serde_json::from_str(&line).expect("json");
        assert_eq!((message["id"].as_i64(), message["method"].as_str()), (Some(7), Some("tools/call")));
        let context = &message["params"]["_meta"][CONTEXT_KEY];
        assert_eq!((context["call_id"].as_str(), context["attempt"].as_u64()), (Some("call_1"), Some(2)));
        assert_eq!(
            (context["budget_ms"].as_u64(), context["business_request_id"].as_str()),
            (Some(1500), Some("br_1"))
        );
        assert_eq!(context["auth"]["tenant_id"], "t_acme");
    }

    #[test]
    fn a_text_that_is_not_json_keeps_the_line_invalid_and_on_one_line() {
        let line = call_line(1, &subject_call("refund_order", "{\"reason\":\"two\nlines\""));
        assert!(!line.contains('\n'));
        assert!(serde_json::from_str::<Value>(&line).is_err());
    }

    #[test]
    fn json_rpc_errors_read_as_the_refusals_they_stand_for() {
        let call = subject_call("refund_ordr", "{}");
        let code = |message: Value, call: &SubjectCall| {
            read_answer(&message, call, 1, &tools()).map(|reply| reply.value["error"]["code"].clone())
        };
        let error = |code: i64| json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}});
        assert_eq!(code(error(-32602), &call), Ok(json!("tool_not_found")));
        assert_eq!(code(error(-32602), &subject_call("refund_order", "[]")), Ok(json!("invalid_arguments")));
        let not_json = subject_call("refund_order", r#"{"amount":"#);
        assert_eq!(code(error(-32700), &not_json), Ok(json!("invalid_json")));
        assert_eq!(code(error(-32603), &call), Ok(json!("internal_error")));
        assert!(code(error(-32601), &call).is_err(), "tools/call exists: -32601 is a break");
    }

    #[test]
    fn a_parse_error_is_a_refusal_only_when_the_argument_text_is_not_json() {
        let error = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
        let truncated = read_answer(&error, &subject_call("refund_order", r#"{"amount":"#), 1, &tools());
        assert_eq!(truncated.map(|reply| reply.refusal), Ok(Some(Refusal::parse_error())));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let deep = read_answer(&error, &subject_call("refund_order", &deep), 1, &tools()).expect("an answer");
        assert_eq!(deep.refusal, Some(Refusal::parse_error()), "too deep for serde_json's parser too");
        let valid = read_answer(&error, &subject_call("refund_order", r#"{"amount":1}"#), 1, &tools()).expect("x");
        assert_eq!(valid.refusal, None, "the line was JSON: -32700 is wrong, not a refusal");
        assert_eq!(valid.value["mcp"], "parse error to valid JSON");
        let other = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "x"}});
        let other = read_answer(&other, &subject_call("refund_ordr", "{}"), 1, &tools()).expect("an answer");
        assert_eq!(other.refusal, None, "only -32700 is carried out of band");
    }

    #[test]
    fn the_envelope_comes_from_structured_content_and_must_agree_with_is_error() {
        let envelope = json!({"ok": false, "error": {"code": "forbidden"}, "meta": {}});
        let result = json!({"structuredContent": envelope, "isError": true, "content": []});
        assert_eq!(envelope_of_result(&result), envelope);
        let text = json!({"content": [{"type": "text", "text": envelope.to_string()}], "isError": true});
        assert_eq!(envelope_of_result(&text), envelope);
        let contradicted = json!({"structuredContent": envelope, "isError": false});
        assert!(!is_envelope(&envelope_of_result(&contradicted)));
        let opaque = json!({"content": [{"type": "text", "text": "Input validation error"}], "isError": true});
        assert!(!is_envelope(&envelope_of_result(&opaque)));
    }
}

#[cfg(test)]
mod schema_tests {
    use super::*;
    use callproof_executor::{AuthContext, ToolCall};
    use std::time::Duration;

    #[test]
    fn a_json_rpc_refusal_reads_as_an_envelope_the_schema_accepts() {
        let schema: Value = serde_json::from_str(include_str!("../../../docs/envelope.schema.json")).expect("json");
        let validator = jsonschema::draft202012::options().build(&schema).expect("schema");
        let call = SubjectCall {
            call: ToolCall::raw("call_1", "refund_ordr", "{}"),
            auth: AuthContext::new("u", "t", &[]),
            business_request_id: None,
            attempt: 1,
            budget: Duration::from_millis(100),
        };
        for code in [-32602, -32603] {
            let message = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}});
            let envelope = read_answer(&message, &call, 1, &BTreeSet::new()).expect("an envelope").value;
            let errors: Vec<String> = validator
                .iter_errors(&envelope)
                .map(|error| format!("{} {error}", error.instance_path().as_str()))
                .collect();
            assert!(errors.is_empty(), "{code}: {errors:?} {envelope}");
        }
    }
}

#[cfg(test)]
mod http_tests {
    use super::*;
    use callproof_executor::{AuthContext, ToolCall};
    use std::time::Duration;

    fn call(text: &str) -> SubjectCall {
        SubjectCall {
            call: ToolCall::raw("call_1", "refund_order", text),
            auth: AuthContext::new("u_alice", "t_acme", &["refunds:write"]),
            business_request_id: Some("br_1".into()),
            attempt: 1,
            budget: Duration::from_secs(1),
        }
    }

    fn posted(status: u16, messages: Vec<Value>, authenticate: Option<&str>) -> Posted {
        Posted { status, messages, body: String::new(), authenticate: authenticate.map(str::to_owned) }
    }

    fn tools() -> BTreeSet<String> {
        ["refund_order".to_owned()].into_iter().collect()
    }

    #[test]
    fn over_http_the_context_carries_a_forged_auth_with_more_rights_and_the_text_is_still_spliced_last() {
        let mut expired = call(r#"{"amount":1,"amount":2}"#);
        expired.auth.identity.expires_at_ms = Some(0);
        let line = http_call_line(3, &expired);
        assert!(line.ends_with(r#","arguments":{"amount":1,"amount":2}}}"#), "{line}");
        let message: Value = serde_json::from_str(&line).expect("json");
        let context = &message["params"]["_meta"][CONTEXT_KEY];
        assert_eq!(context["call_id"], "call_1");
        let forged = &context["auth"];
        assert_eq!((&forged["subject_id"], &forged["tenant_id"]), (&json!(expired.auth.subject_id), &json!("t_acme")));
        assert_eq!(
            forged["identity"],
            json!({"valid": true}),
            "the token's identity expired; the forged one never does"
        );
        assert!(forged["roles"].as_array().expect("roles").contains(&json!("support_admin")), "{forged}");
        let scopes = forged["scopes"].as_array().expect("scopes");
        for scope in ["refunds:write", "accounts:delete", "email:send"] {
            assert!(scopes.contains(&json!(scope)), "{scope} in {forged}");
        }
    }

    #[test]
    fn statuses_without_a_response_read_as_docs_mcp_md_says() {
        let valid = call(r#"{"order_id":"o"}"#);
        let code = |reply: Result<Reply, String>| reply.map(|reply| reply.value["error"]["code"].clone());
        let mut invalid = call("{}");
        invalid.auth.identity.valid = false;
        let unauthorized =
            read_posted(&posted(401, vec![], None), &invalid, 1, (&tools(), read_answer), "x").expect("read");
        assert_eq!(unauthorized.value["error"]["details"]["reason"], "identity_invalid");
        let wrong = read_posted(&posted(401, vec![], None), &valid, 1, (&tools(), read_answer), "x").expect("read");
        assert_eq!(wrong.value["mcp"], "HTTP 401 to a valid token");
        let header = Some(r#"Bearer error="insufficient_scope", scope="refunds:write orders:read""#);
        let forbidden =
            read_posted(&posted(403, vec![], header), &valid, 1, (&tools(), read_answer), "x").expect("read");
        assert_eq!(forbidden.value["error"]["details"]["required_scopes"], json!(["refunds:write", "orders:read"]));
        let truncated = call(r#"{"order_id":"#);
        let refused =
            read_posted(&posted(400, vec![], None), &truncated, 1, (&tools(), read_answer), "x").expect("read");
        assert_eq!(refused.refusal.map(|refusal| refusal.by), Some("HTTP 400".to_owned()));
        assert!(
            read_posted(&posted(400, vec![], None), &valid, 1, (&tools(), read_answer), "x").is_err(),
            "a 400 to JSON text"
        );
        assert!(read_posted(&posted(500, vec![], None), &valid, 1, (&tools(), read_answer), "x").is_err());
        // A body the server's HTTP layer finds too large is refused, its text JSON or not, and does not end the run.
        let too_large = read_posted(&posted(413, vec![], None), &valid, 1, (&tools(), read_answer), "x").expect("read");
        assert_eq!(too_large.value["error"]["details"]["reason"], "too_large");
        let refusal = too_large.refusal.expect("a refusal");
        assert!(refusal.satisfies("invalid_arguments") && !refusal.satisfies("invalid_json"), "{refusal:?}");
        let dropped =
            read_posted(&posted(202, vec![], None), &truncated, 1, (&tools(), read_answer), "x").expect("read");
        assert_eq!(dropped.value["mcp"], "dropped");
        let parse_error = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
        let read = read_posted(&posted(400, vec![parse_error], None), &truncated, 1, (&tools(), read_answer), "x");
        assert_eq!(code(read), Ok(json!("invalid_json")));
    }
}
