use super::*;
use crate::request::Arguments;
use crate::request::ToolCall;

fn code(line: &str) -> Option<i64> {
    answer(line.as_bytes(), &[], Trust::Stdio).error_code()
}

fn execute(line: &str, trust: Trust) -> Call {
    match answer(line.as_bytes(), &[], trust) {
        Answer::Execute(call) => *call,
        other => panic!("not a call: {other:?}"),
    }
}

#[test]
fn protocol_errors_get_their_json_rpc_codes() {
    assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#), Some(-32700));
    assert_eq!(answer(b"\xff", &[], Trust::Stdio).error_code(), Some(-32700));
    assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":5}"#), Some(-32600));
    assert_eq!(code(r#"[1]"#), Some(-32600));
    assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#), Some(-32601));
    let text_arguments =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_order","arguments":"x"}}"#;
    let refused = execute(text_arguments, Trust::Stdio).refused;
    assert!(refused.is_some_and(|why| why.contains("not an object")), "answered -32602 with the envelope");
    let null = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_order","arguments":null}}"#;
    let call = execute(null, Trust::Stdio);
    assert_eq!((call.request.call.arguments, call.refused.is_some()), (Arguments::Raw("null".to_owned()), true));
    let notification = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert!(matches!(answer(notification.as_bytes(), &[], Trust::Stdio), Answer::Nothing));
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#;
    let features = ["durable_store".to_owned(), "store_outage".to_owned()];
    let Answer::Initialize(message) = answer(initialize.as_bytes(), &features, Trust::Stdio) else {
        panic!("not initialize")
    };
    assert_eq!(message["result"]["protocolVersion"], "2025-06-18");
    let declared = &message["result"]["capabilities"]["experimental"]["io.callproof/conformance-app"]["features"];
    assert_eq!(declared, &json!(["durable_store", "store_outage"]));
}

#[test]
fn the_argument_text_reaches_the_executor_byte_for_byte_with_the_meta_context() {
    let line = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_order","_meta":{"io.callproof/context":{"call_id":"c1","attempt":2,"auth":{"subject_id":"u","tenant_id":"t","identity":{"valid":true}}}},"arguments":{"order_id":"ord_1","order_id":"ord_2"}}}"#;
    let call = execute(line, Trust::Stdio);
    assert_eq!(call.id, json!(3));
    assert_eq!(call.request.call, ToolCall::raw("c1", "get_order", r#"{"order_id":"ord_1","order_id":"ord_2"}"#));
    assert_eq!((call.request.attempt, call.request.auth.subject_id.as_str()), (2, "u"));
}

#[test]
fn without_meta_the_fixed_stdio_context_is_used() {
    let line = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"get_order","arguments":{}}}"#;
    let request = execute(line, Trust::Stdio).request;
    assert_eq!(request.auth.subject_id, "stdio_user");
    assert!(request.auth.scopes.contains("orders:read"));
    assert_eq!(request.call.call_id, "mcp_a");
}

#[test]
fn over_http_the_token_identity_wins_and_a_meta_auth_is_ignored_even_when_malformed() {
    let token = crate::AuthContext::new("u_token", "t_token", &["orders:read"]);
    let forged = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_order","_meta":{"io.callproof/context":{"call_id":"c4","auth":{"subject_id":"admin","tenant_id":"t_other","scopes":["refunds:write"],"identity":{"valid":true}}}},"arguments":{}}}"#;
    let request = execute(forged, Trust::Token(Box::new(token.clone()))).request;
    assert_eq!((request.auth, request.call.call_id.as_str()), (token.clone(), "c4"));
    let malformed = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_order","_meta":{"io.callproof/context":{"auth":7}},"arguments":{}}}"#;
    assert_eq!(execute(malformed, Trust::Token(Box::new(token))).request.auth.subject_id, "u_token");
    assert_eq!(code(malformed), Some(-32602), "over stdio the same auth is read, and refused");
}

#[test]
fn a_modern_request_is_served_without_initialize_and_its_results_are_complete() {
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let now = |line: String| match reply(line.as_bytes(), &["durable_store".to_owned()], Trust::Stdio) {
        Reply { answer: Answer::Now(message), route: Some(_) } => message,
        other => panic!("not a modern answer: {other:?}"),
    };
    let discovered = now(format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{meta}}}}}"#));
    assert_eq!(discovered["result"]["supportedVersions"], json!(["2026-07-28", "2025-11-25"]));
    assert_eq!(
        discovered["result"]["capabilities"]["extensions"]["io.callproof/conformance-app"]["features"][0],
        "durable_store"
    );
    let listed = now(format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{meta}}}}}"#));
    assert_eq!(
        (listed["result"]["resultType"].as_str(), listed["result"]["cacheScope"].as_str()),
        (Some("complete"), Some("public"))
    );
    assert_eq!(listed["result"]["tools"], json!(tool_list()));
    let ping = now(format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{{meta}}}}}"#));
    assert_eq!(ping["error"]["code"], -32601, "ping is gone in 2026-07-28");
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"get_order",{meta},"arguments":{{}}}}}}"#
    );
    assert!(execute(&call, Trust::Stdio).modern);
    let legacy = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#;
    assert!(reply(legacy.as_bytes(), &[], Trust::Stdio).route.is_none(), "no _meta: a legacy request");
}
