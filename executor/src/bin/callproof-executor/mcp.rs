//! `callproof-executor --mcp`: the reference executor as an MCP server over stdio (protocol 2025-11-25),
//! serving the conformance app's tools; each answer's `structuredContent` is the envelope (docs/mcp.md).
//!
//! Rule enforced here: the JSON-RPC layer refuses what is not a request before any tool runs (-32700 for a
//! line that is not JSON, -32600 for a request that is not one, -32601 for an unknown method, -32602 for an
//! unknown tool or arguments that are not an object); the argument text goes to the executor as the raw text
//! it was on the line, so duplicate keys, `100.0` and `"100"` meet the executor's strict decoder. An unknown
//! tool and arguments that are not an object still go through the executor's decoder (which checks the size
//! before the name), and the -32602 carries its envelope in `data.envelope` (docs/mcp.md).
//! The trusted context comes from `_meta["io.callproof/context"]`, or is the fixed stdio context when absent.

use crate::options::Options;
use crate::serve;
use callproof_executor::Executor;
use callproof_executor::app::catalog;
use callproof_executor::auth::AuthContext;
use callproof_executor::error::ErrorCode;
use callproof_executor::lines::{self, LineError};
use callproof_executor::request::{Request, ToolCall};
use callproof_executor::tool::Risk;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The revision this server speaks, and the older ones it accepts in `initialize` (answered with their own).
const VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Where the tools send downstream requests when `CALLPROOF_DOWNSTREAM_URL` is unset: the discard port, so
/// every call that needs the downstream fails as `downstream_unavailable` instead of reaching anything.
const NO_DOWNSTREAM: &str = "http://127.0.0.1:9";

/// A call's budget when its `_meta` gives none.
const DEFAULT_BUDGET: Duration = Duration::from_secs(10);

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

/// The `params` of a line, kept as text.
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

/// A JSON-RPC error code and message.
struct Refusal(i64, String);

/// Serves MCP on stdin/stdout until stdin ends; every call in flight is answered before the process exits.
pub(crate) async fn serve(options: Options) -> Result<(), String> {
    let (store, durable) = serve::open_store(&options).await?;
    let downstream = std::env::var("CALLPROOF_DOWNSTREAM_URL").unwrap_or_else(|_| NO_DOWNSTREAM.to_owned());
    let session = std::env::var("CALLPROOF_SESSION").unwrap_or_else(|_| "mcp".to_owned());
    let executor = Arc::new(serve::build(&options, &downstream, &session, store, durable)?);
    eprintln!("callproof-executor: serving MCP {} on stdio against {downstream}", VERSIONS[0]);
    let (lines, outbox) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(write_lines(outbox));
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut calls = tokio::task::JoinSet::new();
    loop {
        let line = match lines::read_line(&mut stdin).await {
            Ok(Some(line)) => line,
            Ok(None) | Err(LineError::Cut | LineError::Read(_)) => break,
            Err(LineError::NotUtf8) => {
                let _ = lines.send(refusal(&Value::Null, Refusal(-32700, "Parse error: not UTF-8".to_owned())));
                continue;
            }
            Err(LineError::TooLong) => {
                let why = format!("Parse error: a line longer than {} bytes", lines::MAX_LINE_BYTES);
                let _ = lines.send(refusal(&Value::Null, Refusal(-32700, why)));
                break;
            }
        };
        while calls.try_join_next().is_some() {}
        match answer(&line, durable) {
            Answer::Nothing => {}
            Answer::Now(message) => {
                let _ = lines.send(message);
            }
            Answer::Execute(id, request, refused) => {
                let executor: Arc<Executor> = executor.clone();
                let lines = lines.clone();
                calls.spawn(async move {
                    let name = request.call.name.clone();
                    let envelope = executor.execute(*request).await;
                    let unknown = envelope.code() == Some(ErrorCode::ToolNotFound);
                    let envelope = envelope.to_json();
                    let message = match refused {
                        Some(why) if envelope.get("ok") != Some(&Value::Bool(true)) => Some(why),
                        _ if unknown => Some(format!("Invalid params: unknown tool {name:?}")),
                        _ => None,
                    };
                    let _ = lines.send(match message {
                        Some(message) => json!({"jsonrpc": "2.0", "id": id, "error":
                            {"code": -32602, "message": message, "data": {"envelope": envelope}}}),
                        None => json!({"jsonrpc": "2.0", "id": id, "result": tool_result(envelope)}),
                    });
                });
            }
        }
    }
    while calls.join_next().await.is_some() {}
    drop(lines);
    writer.await.map_err(|error| format!("the stdout writer failed: {error}"))?
}

/// What one line calls for.
enum Answer {
    /// A notification or a response: nothing.
    Nothing,
    /// A message to send at once.
    Now(Value),
    /// A tool call for the executor, answered under this id; with a -32602 message when the params are not a
    /// `CallToolRequest` (arguments that are not an object), unless the executor somehow succeeds.
    Execute(Value, Box<Request>, Option<String>),
}

fn answer(line: &str, durable: bool) -> Answer {
    let Ok(message) = serde_json::from_str::<Value>(line) else {
        return Answer::Now(refusal(&Value::Null, Refusal(-32700, "Parse error".to_owned())));
    };
    let invalid = |id: &Value, why: &str| Answer::Now(refusal(id, Refusal(-32600, format!("Invalid Request: {why}"))));
    let Value::Object(members) = &message else { return invalid(&Value::Null, "not a JSON object") };
    let id = match members.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id.clone()),
        Some(_) => return invalid(&Value::Null, "id is not a string, a number or null"),
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    if members.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid(&reply_id, "jsonrpc is not \"2.0\"");
    }
    let method = match members.get("method") {
        Some(Value::String(method)) => method.as_str(),
        None if members.contains_key("result") || members.contains_key("error") => return Answer::Nothing,
        _ => return invalid(&reply_id, "method is not a string"),
    };
    let Some(id) = id else { return Answer::Nothing };
    let result = match method {
        "initialize" => Ok(initialize(members.get("params"), durable)),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": tool_list()})),
        "tools/call" => match call(line, &id) {
            Ok((request, refused)) => return Answer::Execute(id, Box::new(request), refused),
            Err(refused) => Err(refused),
        },
        other => Err(Refusal(-32601, format!("Method not found: {other}"))),
    };
    Answer::Now(match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(refused) => refusal(&id, refused),
    })
}

fn refusal(id: &Value, Refusal(code, message): Refusal) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `initialize` result; a durable store is declared as docs/mcp.md says (`experimental`), so crash
/// scenarios are judged rather than expected to fail.
fn initialize(params: Option<&Value>, durable: bool) -> Value {
    let asked = params.and_then(|params| params.get("protocolVersion")).and_then(Value::as_str);
    let version = asked.filter(|asked| VERSIONS.contains(asked)).unwrap_or(VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {
            "tools": {"listChanged": false},
            "experimental": {"io.callproof/conformance-app": {"features": if durable { vec!["durable_store"] } else { vec![] }}},
        },
        "serverInfo": {"name": "callproof-executor", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "The callproof conformance app; each result's structuredContent is a callproof envelope.",
    })
}

/// The conformance app's tools as MCP tools: the catalog's input schema, the envelope as output schema, and
/// annotations from the catalog's risk.
fn tool_list() -> Vec<Value> {
    let mut envelope: Map<String, Value> =
        serde_json::from_str(include_str!("../../../../docs/envelope.schema.json")).unwrap_or_default();
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

/// The executor's request for a `tools/call` line, with the -32602 message when its arguments are not an
/// object; or why the line is not a `CallToolRequest` at all.
fn call(line: &str, id: &Value) -> Result<(Request, Option<String>), Refusal> {
    let invalid = |why: String| Refusal(-32602, format!("Invalid params: {why}"));
    let message: Value = serde_json::from_str(line).map_err(|error| invalid(error.to_string()))?;
    let Some(params) = message.get("params").and_then(Value::as_object) else {
        return Err(invalid("params is not an object".to_owned()));
    };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(invalid("name is not a string".to_owned()));
    };
    let raw: Line<'_> = serde_json::from_str(line).map_err(|error| invalid(error.to_string()))?;
    let text = match raw.params.map(|params| serde_json::from_str::<CallParams<'_>>(params.get())) {
        Some(Ok(CallParams { arguments: Some(arguments) })) => arguments.get().to_owned(),
        // `Option` reads `null` as absent: an explicit `"arguments": null` is not an object, not `{}`.
        Some(Ok(CallParams { arguments: None })) if params.get("arguments").is_some() => "null".to_owned(),
        Some(Ok(CallParams { arguments: None })) | None => "{}".to_owned(),
        Some(Err(error)) => return Err(invalid(error.to_string())),
    };
    let refused =
        (!text.trim_start().starts_with("{")).then(|| "Invalid params: arguments is not an object".to_owned());
    let context = match params.get("_meta").and_then(|meta| meta.get("io.callproof/context")) {
        None => Context::default(),
        Some(context) => Context::deserialize(context)
            .map_err(|error| invalid(format!("_meta[\"io.callproof/context\"]: {error}")))?,
    };
    let call_id = context.call_id.unwrap_or_else(|| format!("mcp_{}", id.to_string().trim_matches('"')));
    let request = Request {
        call: ToolCall::raw(call_id, name, text),
        auth: context.auth.unwrap_or_else(stdio_context),
        business_request_id: context.business_request_id,
        attempt: context.attempt.unwrap_or(1),
        budget: context.budget_ms.map_or(DEFAULT_BUDGET, Duration::from_millis),
        request_id: None,
        trace_id: None,
    };
    Ok((request, refused))
}

/// The trusted context of a call whose `_meta` carries none: the user who started the process over stdio
/// (MCP: stdio credentials come from the environment that launched the server), with every scope the
/// catalog names and no approval, so approval-bound tools still refuse.
fn stdio_context() -> AuthContext {
    let scopes: BTreeSet<String> = catalog().into_iter().flat_map(|entry| entry.spec.required_scopes).collect();
    let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
    AuthContext::new("stdio_user", "stdio_tenant", &scopes)
}

/// The `CallToolResult` of an envelope: the envelope as `structuredContent` and as one text block, and
/// `isError` exactly when the envelope is a failure.
fn tool_result(envelope: Value) -> Value {
    let failed = envelope.get("ok") != Some(&Value::Bool(true));
    json!({
        "content": [{"type": "text", "text": envelope.to_string()}],
        "structuredContent": envelope,
        "isError": failed,
    })
}

/// The one writer of stdout: whole lines, in the order they were sent.
async fn write_lines(mut outbox: mpsc::UnboundedReceiver<Value>) -> Result<(), String> {
    let mut stdout = tokio::io::stdout();
    while let Some(message) = outbox.recv().await {
        let line = format!("{message}\n");
        stdout.write_all(line.as_bytes()).await.map_err(|error| format!("cannot write to stdout: {error}"))?;
        stdout.flush().await.map_err(|error| format!("cannot write to stdout: {error}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use callproof_executor::request::Arguments;

    fn code(line: &str) -> Option<i64> {
        match answer(line, false) {
            Answer::Now(message) => message["error"]["code"].as_i64(),
            _ => None,
        }
    }

    #[test]
    fn protocol_errors_get_their_json_rpc_codes() {
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#), Some(-32700));
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":5}"#), Some(-32600));
        assert_eq!(code(r#"[1]"#), Some(-32600));
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#), Some(-32601));
        let text_arguments =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_order","arguments":"x"}}"#;
        let Answer::Execute(_, _, refused) = answer(text_arguments, false) else { panic!("decoded first") };
        assert!(refused.is_some_and(|why| why.contains("not an object")), "answered -32602 with the envelope");
        let null = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_order","arguments":null}}"#;
        let Answer::Execute(_, request, refused) = answer(null, false) else { panic!("decoded first") };
        assert_eq!((request.call.arguments, refused.is_some()), (Arguments::Raw("null".to_owned()), true));
        assert!(matches!(answer(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, false), Answer::Nothing));
    }

    #[test]
    fn the_argument_text_reaches_the_executor_byte_for_byte_with_the_meta_context() {
        let line = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_order","_meta":{"io.callproof/context":{"call_id":"c1","attempt":2,"auth":{"subject_id":"u","tenant_id":"t","identity":{"valid":true}}}},"arguments":{"order_id":"ord_1","order_id":"ord_2"}}}"#;
        let Answer::Execute(id, request, None) = answer(line, false) else { panic!("not a call") };
        assert_eq!(id, json!(3));
        assert_eq!(request.call, ToolCall::raw("c1", "get_order", r#"{"order_id":"ord_1","order_id":"ord_2"}"#));
        assert_eq!((request.attempt, request.auth.subject_id.as_str()), (2, "u"));
    }

    #[test]
    fn without_meta_the_fixed_stdio_context_is_used() {
        let line = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"get_order","arguments":{}}}"#;
        let Answer::Execute(_, request, None) = answer(line, false) else { panic!("not a call") };
        assert_eq!(request.auth.subject_id, "stdio_user");
        assert!(request.auth.scopes.contains("orders:read"));
        assert_eq!(request.call.call_id, "mcp_a");
    }
}
