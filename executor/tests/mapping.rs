//! Envelopes from real executions written back as MCP, OpenAI and Anthropic tool results.

mod support;

use callproof_executor::mapping::{JSONRPC_INVALID_PARAMS, McpAnswer, model_view, to_anthropic, to_mcp, to_openai};
use serde_json::{Value, json};
use support::{RequestExt, World, call, refund};

fn text_json(text: &Value) -> Value {
    serde_json::from_str(text.as_str().expect("a text block")).expect("the text block is JSON")
}

#[tokio::test]
async fn an_unknown_tool_is_an_mcp_protocol_error_with_invalid_params() {
    let world = World::new();
    let envelope = world.execute(call("refund_ordr", "{}")).await;
    let McpAnswer::Error(error) = to_mcp(&envelope, "refund_ordr") else { panic!("expected a JSON-RPC error") };
    assert_eq!(error["code"], JSONRPC_INVALID_PARAMS);
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["code"], "tool_not_found");
    let response = McpAnswer::Error(error).into_response(json!(7));
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(response["id"], 7);
    assert!(response.get("result").is_none());
}

#[tokio::test]
async fn a_schema_violation_is_an_mcp_tool_result_the_model_can_read() {
    let world = World::new();
    let envelope = world.execute(call("refund_order", r#"{"order_id":"ord_123","amount":"100","reason":"x"}"#)).await;
    let McpAnswer::Result(result) = to_mcp(&envelope, "refund_order") else { panic!("expected a CallToolResult") };
    assert_eq!(result["isError"], true);
    assert_eq!(result["structuredContent"]["error"]["code"], "schema_violation");
    assert_eq!(result["structuredContent"]["error"]["details"]["path"], "/amount");
    assert_eq!(result["content"][0]["type"], "text");
    assert_eq!(text_json(&result["content"][0]["text"]), result["structuredContent"]);
}

#[tokio::test]
async fn every_failure_other_than_an_unknown_tool_is_an_mcp_tool_result() {
    let world = World::new();
    for request in [call("refund_order", "[1]"), call("refund_order", "{"), refund("ord_bob", 1)] {
        let envelope = world.execute(request).await;
        let McpAnswer::Result(result) = to_mcp(&envelope, "refund_order") else {
            panic!("{:?} must be a tool result", envelope.code())
        };
        assert_eq!(result["isError"], true);
    }
}

#[tokio::test]
async fn a_success_is_an_mcp_result_with_structured_content() {
    let world = World::new();
    let envelope = world.execute(refund("ord_123", 100)).await;
    let McpAnswer::Result(result) = to_mcp(&envelope, "refund_order") else { panic!("expected a CallToolResult") };
    assert_eq!(result["isError"], false);
    assert_eq!(result["structuredContent"], envelope.result.clone().expect("result"));
    assert_eq!(text_json(&result["content"][0]["text"])["result"], result["structuredContent"]);
}

#[tokio::test]
async fn openai_gets_a_function_call_output_for_the_models_call_id() {
    let world = World::new();
    let envelope = world.execute(refund("ord_bob", 100).call_id("call_abc")).await;
    let item = to_openai(&envelope);
    assert_eq!(item["type"], "function_call_output");
    assert_eq!(item["call_id"], "call_abc");
    let output = text_json(&item["output"]);
    assert_eq!(output, model_view(&envelope));
    assert_eq!(output["error"]["code"], "forbidden");
    assert_eq!(output["error"]["resolution"], "stop");
}

#[tokio::test]
async fn anthropic_gets_a_tool_result_for_the_models_tool_use_id() {
    let world = World::new();
    let ok = world.execute(refund("ord_123", 100).call_id("toolu_1")).await;
    let block = to_anthropic(&ok);
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], "toolu_1");
    assert_eq!(block["is_error"], false);
    assert_eq!(text_json(&block["content"][0]["text"])["result"], ok.result.clone().expect("result"));

    let failed = world.execute(call("refund_order", "{").call_id("toolu_2")).await;
    let block = to_anthropic(&failed);
    assert_eq!(block["is_error"], true);
    assert_eq!(text_json(&block["content"][0]["text"])["error"]["code"], "invalid_json");
}

#[tokio::test]
async fn the_model_never_sees_the_executors_bookkeeping() {
    let world = World::new();
    let envelope = world.execute(refund("ord_123", 100)).await;
    let key = envelope.meta.idempotency_key.clone().expect("key");
    for shown in
        [to_openai(&envelope).to_string(), to_anthropic(&envelope).to_string(), model_view(&envelope).to_string()]
    {
        assert!(!shown.contains(&key), "{shown}");
        assert!(!shown.contains(&envelope.meta.request_id), "{shown}");
    }
}
