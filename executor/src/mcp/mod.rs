//! The reference executor as an MCP server (protocol 2025-11-25 after `initialize`, and 2026-07-28 statelessly,
//! [`modern`], with the Tasks extension for the task tools, [`tasks`]), independent of the transport: one JSON-RPC message in, its answer out. The stdio loop (`callproof-executor --mcp`) and the Streamable HTTP handler
//! (`--mcp-http`) both call [`answer`], so both transports refuse and answer alike (docs/mcp.md).
//!
//! Rule enforced here: the JSON-RPC layer refuses what is not a request before any tool runs (-32700 for a
//! message that is not JSON or not UTF-8, -32600 for a request that is not one, -32601 for an unknown method,
//! -32602 for an unknown tool or arguments that are not an object); the argument text goes to the executor as
//! the raw text it was in the message, so duplicate keys, `100.0` and `"100"` meet the executor's strict
//! decoder. The trusted identity comes from the transport ([`Trust`]), never from the message alone: over HTTP
//! an `auth` member in `_meta["io.callproof/context"]` is ignored.

mod call;
pub mod modern;
pub mod tasks;
pub mod token;

pub use call::{Call, Shape, Trust, stdio_context, tool_result};
pub use modern::Route;

use crate::app::catalog;
use crate::tool::Risk;
use serde_json::{Map, Value, json};

/// The revision this server speaks, and the older ones it accepts in `initialize` (answered with their own).
pub const VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC 2.0 §5.1: the message is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0 §5.1: the message is not a request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0 §5.1: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC 2.0 §5.1: the params are not what the method takes.
pub const INVALID_PARAMS: i64 = -32602;

/// What one message calls for.
#[derive(Debug)]
pub enum Answer {
    /// A notification or a response: nothing (HTTP: 202 Accepted).
    Nothing,
    /// A message to send at once: a result, or a refusal made before any tool ran.
    Now(Value),
    /// The `initialize` result; over HTTP it opens a session.
    Initialize(Value),
    /// A tool call for the executor.
    Execute(Box<Call>),
}

impl Answer {
    /// The JSON-RPC error code of a message sent at once, when it is an error.
    pub fn error_code(&self) -> Option<i64> {
        match self {
            Answer::Now(message) => message.get("error")?.get("code")?.as_i64(),
            _ => None,
        }
    }
}

/// A JSON-RPC error code and message.
#[derive(Debug)]
pub(crate) struct Refusal(pub(crate) i64, pub(crate) String);

/// An [`Answer`], and the [`Route`] of the request when it was a modern (2026-07-28) one, which the HTTP
/// transport checks its headers against and picks its status by.
#[derive(Debug)]
pub struct Reply {
    /// What the message calls for.
    pub answer: Answer,
    /// Set for a modern request.
    pub route: Option<Route>,
}

/// The answer to one JSON-RPC message (one stdio line, one HTTP body); `features` are the conformance app's
/// features the server has (`durable_store`, `store_outage`; declared in `initialize` and `server/discover`).
/// Never panics, whatever the bytes.
pub fn answer(message: &[u8], features: &[String], trust: Trust) -> Answer {
    reply(message, features, trust).answer
}

/// [`answer`], with the route of a modern request.
pub fn reply(message: &[u8], features: &[String], trust: Trust) -> Reply {
    let legacy = |answer: Answer| Reply { answer, route: None };
    let Ok(text) = std::str::from_utf8(message) else {
        return legacy(Answer::Now(refusal(&Value::Null, PARSE_ERROR, "Parse error: not UTF-8")));
    };
    let Ok(parsed) = serde_json::from_str::<Value>(text) else {
        return legacy(Answer::Now(refusal(&Value::Null, PARSE_ERROR, "Parse error")));
    };
    let (method, id) = match request(&parsed) {
        Ok(request) => request,
        Err(answer) => return legacy(answer),
    };
    let params = parsed.get("params");
    if modern::is_modern(method, params) {
        let route = modern::route(&id, method, params);
        return Reply { answer: modern_answer(text, &parsed, &id, features, trust), route: Some(route) };
    }
    let result = match method {
        "initialize" => return legacy(Answer::Initialize(success(&id, initialize(params, features)))),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": tool_list()})),
        "tools/call" => match call::call(text, &parsed, &id, trust) {
            Ok(call) => return legacy(Answer::Execute(Box::new(call))),
            Err(Refusal(code, why)) => Err((code, why)),
        },
        other => Err((METHOD_NOT_FOUND, format!("Method not found: {other}"))),
    };
    legacy(Answer::Now(match result {
        Ok(result) => success(&id, result),
        Err((code, why)) => refusal(&id, code, &why),
    }))
}

/// A modern request (2026-07-28): its `_meta` checked first, then the method; no `initialize`, no `ping`.
fn modern_answer(text: &str, parsed: &Value, id: &Value, features: &[String], trust: Trust) -> Answer {
    if let Some(refused) = modern::refusal(id, parsed.get("params")) {
        return Answer::Now(refused);
    }
    let method = parsed.get("method").and_then(Value::as_str).unwrap_or_default();
    Answer::Now(match method {
        "server/discover" => success(id, modern::discover(features)),
        "tools/list" => success(id, modern::tools_list(tool_list())),
        "tools/call" => match call::call(text, parsed, id, trust) {
            Ok(mut call) => {
                call.modern = true;
                if tasks::declared(parsed.get("params")) && tasks::submits(&call.request.call.name) {
                    call.shape = Shape::Submit;
                }
                return Answer::Execute(Box::new(call));
            }
            Err(Refusal(code, why)) => refusal(id, code, &why),
        },
        "tasks/get" | "tasks/cancel" => match tasks::request(parsed, id, trust, method) {
            Ok(call) => return Answer::Execute(Box::new(call)),
            Err(refused) => refused,
        },
        other => refusal(id, METHOD_NOT_FOUND, &format!("Method not found: {other}")),
    })
}

/// The method and id of a request, or the answer to a message that is not one (an error, or nothing for a
/// notification or a response).
fn request(parsed: &Value) -> Result<(&str, Value), Answer> {
    let invalid = |id: &Value, why: &str| Answer::Now(refusal(id, INVALID_REQUEST, &format!("Invalid Request: {why}")));
    let Value::Object(members) = parsed else { return Err(invalid(&Value::Null, "not a JSON object")) };
    let id = match members.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id.clone()),
        Some(_) => return Err(invalid(&Value::Null, "id is not a string, a number or null")),
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    if members.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(invalid(&reply_id, "jsonrpc is not \"2.0\""));
    }
    let method = match members.get("method") {
        Some(Value::String(method)) => method.as_str(),
        None if members.contains_key("result") || members.contains_key("error") => return Err(Answer::Nothing),
        _ => return Err(invalid(&reply_id, "method is not a string")),
    };
    let Some(id) = id else { return Err(Answer::Nothing) };
    Ok((method, id))
}

/// A JSON-RPC result message.
fn success(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A JSON-RPC error message.
pub fn refusal(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `initialize` result; the features are declared as docs/mcp.md says (`experimental`), so crash scenarios
/// are judged rather than expected to fail (`durable_store`), and a store the harness relays can be cut off
/// (`store_outage`).
fn initialize(params: Option<&Value>, features: &[String]) -> Value {
    let asked = params.and_then(|params| params.get("protocolVersion")).and_then(Value::as_str);
    let version = asked.filter(|asked| VERSIONS.contains(asked)).unwrap_or(VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {
            "tools": {"listChanged": false},
            "experimental": {"io.callproof/conformance-app": {"features": features}},
        },
        "serverInfo": modern::server_info(),
        "instructions": "The callproof conformance app; each result's structuredContent is a callproof envelope.",
    })
}

/// The conformance app's tools as MCP tools: the catalog's input schema, the envelope as output schema, and
/// annotations from the catalog's risk.
pub fn tool_list() -> Vec<Value> {
    let mut envelope: Map<String, Value> =
        serde_json::from_str(include_str!("../../../docs/envelope.schema.json")).unwrap_or_default();
    envelope.insert("type".to_owned(), json!("object"));
    catalog()
        .into_iter()
        .map(|entry| {
            let spec = entry.spec;
            let read = spec.risk == Risk::Read;
            let mut annotations = json!({
                "readOnlyHint": read,
                "destructiveHint": spec.risk == Risk::Destructive,
                "openWorldHint": spec.risk == Risk::External,
            });
            if read {
                annotations["idempotentHint"] = json!(true);
            }
            json!({
                "name": spec.name,
                "description": spec.description,
                "inputSchema": spec.input_schema,
                "outputSchema": envelope,
                "annotations": annotations,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
