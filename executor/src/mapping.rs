//! Writing an envelope back in each ecosystem's tool-result shape: MCP, OpenAI, Anthropic.
//!
//! Rule enforced here: the model always receives the same facts (the result, or the code, message,
//! retryable flag, resolution and details), tied to the call it answers. MCP separates protocol errors from
//! tool execution errors (MCP 2025-11-25, SEP-1303): only an unknown tool is a JSON-RPC error (-32602);
//! every argument, authorization, business or downstream failure is a `CallToolResult` with `isError: true`,
//! so the model can read it and correct itself.

use crate::envelope::Envelope;
use crate::error::ErrorCode;
use serde_json::{Value, json};

/// JSON-RPC "invalid params", which MCP uses for an unknown tool.
pub const JSONRPC_INVALID_PARAMS: i64 = -32602;

/// What goes back to the model: the result, or the actionable part of the error.
pub fn model_view(envelope: &Envelope) -> Value {
    match (&envelope.result, &envelope.error) {
        (Some(result), _) if envelope.ok => json!({"ok": true, "result": result}),
        (_, Some(error)) => json!({
            "ok": false,
            "error": {
                "code": error.code(),
                "message": error.message(),
                "retryable": error.retryable(),
                "resolution": error.resolution(),
                "details": error.details(),
            }
        }),
        _ => json!({"ok": envelope.ok}),
    }
}

/// An MCP `tools/call` answer: a result, or a protocol-level JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub enum McpAnswer {
    /// A `CallToolResult`.
    Result(Value),
    /// A JSON-RPC error object.
    Error(Value),
}

impl McpAnswer {
    /// The full JSON-RPC response for request `id`.
    pub fn into_response(self, id: Value) -> Value {
        match self {
            McpAnswer::Result(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            McpAnswer::Error(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        }
    }
}

/// Maps an envelope to MCP.
pub fn to_mcp(envelope: &Envelope, tool_name: &str) -> McpAnswer {
    if envelope.code() == Some(ErrorCode::ToolNotFound) {
        let shown: String = tool_name.chars().take(64).collect();
        return McpAnswer::Error(json!({
            "code": JSONRPC_INVALID_PARAMS,
            "message": format!("Unknown tool: {shown}"),
            "data": model_view(envelope)["error"],
        }));
    }
    let view = model_view(envelope);
    let text = view.to_string();
    let structured = match &envelope.result {
        // structuredContent must be an object; wrap anything else.
        Some(Value::Object(result)) if envelope.ok => Value::Object(result.clone()),
        Some(other) if envelope.ok => json!({"result": other}),
        _ => view,
    };
    McpAnswer::Result(json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": !envelope.ok,
    }))
}

/// Maps an envelope to an OpenAI Responses API `function_call_output` item.
pub fn to_openai(envelope: &Envelope) -> Value {
    json!({
        "type": "function_call_output",
        "call_id": envelope.meta.call_id,
        "output": model_view(envelope).to_string(),
    })
}

/// Maps an envelope to an Anthropic Messages API `tool_result` content block.
pub fn to_anthropic(envelope: &Envelope) -> Value {
    json!({
        "type": "tool_result",
        "tool_use_id": envelope.meta.call_id,
        "is_error": !envelope.ok,
        "content": [{"type": "text", "text": model_view(envelope).to_string()}],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::Meta;
    use crate::error::ErrorBody;

    fn meta() -> Meta {
        Meta {
            request_id: "req".into(),
            call_id: "call_7".into(),
            attempt: 1,
            idempotency_key: None,
            replayed: false,
            reconciled: false,
        }
    }

    fn failure(code: ErrorCode) -> Envelope {
        Envelope::failure(ErrorBody::new(code, "msg").with("path", "/amount"), meta())
    }

    #[test]
    fn mcp_unknown_tool_is_a_protocol_error() {
        let McpAnswer::Error(error) = to_mcp(&failure(ErrorCode::ToolNotFound), "refund_ordr") else {
            panic!("expected a JSON-RPC error")
        };
        assert_eq!(error["code"], -32602);
        assert_eq!(error["message"], "Unknown tool: refund_ordr");
        let response = McpAnswer::Error(error).into_response(json!(3));
        assert_eq!(response["id"], 3);
        assert!(response.get("result").is_none());
    }

    #[test]
    fn mcp_argument_errors_are_tool_results_the_model_can_read() {
        for code in
            [ErrorCode::SchemaViolation, ErrorCode::InvalidJson, ErrorCode::Forbidden, ErrorCode::TimeoutUnknown]
        {
            let McpAnswer::Result(result) = to_mcp(&failure(code), "refund_order") else {
                panic!("{code} must be a tool result")
            };
            assert_eq!(result["isError"], true);
            assert_eq!(result["structuredContent"]["error"]["code"], code.as_str());
            let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text")).expect("json");
            assert_eq!(text["error"]["details"]["path"], "/amount");
        }
    }

    #[test]
    fn mcp_success_carries_structured_content_and_text() {
        let envelope = Envelope::success(json!({"refund_id": "rf_1"}), meta());
        let McpAnswer::Result(result) = to_mcp(&envelope, "refund_order") else { panic!("result") };
        assert_eq!(result["isError"], false);
        assert_eq!(result["structuredContent"], json!({"refund_id": "rf_1"}));
        let scalar = Envelope::success(json!(42), meta());
        let McpAnswer::Result(result) = to_mcp(&scalar, "x") else { panic!("result") };
        assert_eq!(result["structuredContent"], json!({"result": 42}));
    }

    #[test]
    fn openai_and_anthropic_keep_the_call_id() {
        let envelope = failure(ErrorCode::RateLimited);
        let openai = to_openai(&envelope);
        assert_eq!(openai["type"], "function_call_output");
        assert_eq!(openai["call_id"], "call_7");
        let output: Value = serde_json::from_str(openai["output"].as_str().expect("string")).expect("json");
        assert_eq!(output["error"]["code"], "rate_limited");
        assert_eq!(output["error"]["retryable"], true);

        let anthropic = to_anthropic(&envelope);
        assert_eq!(anthropic["type"], "tool_result");
        assert_eq!(anthropic["tool_use_id"], "call_7");
        assert_eq!(anthropic["is_error"], true);
        assert_eq!(anthropic["content"][0]["type"], "text");
    }
}
