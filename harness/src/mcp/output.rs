//! A tool's successful result judged as output: its `structuredContent` mirrored in a text block
//! (`mcp-output-text-mirror`) and valid against the tool's `outputSchema` (`mcp-output-conforms`).
//!
//! Rule enforced here: a text block is read as the server wrote it, by RFC 8259's grammar, the way the message
//! around it was read (a lone surrogate escape as U+FFFD, `super::surrogate`), so the two sides compare alike.

use super::checks;
use super::client::Exchange;
use super::lint;
use super::profile::Run;
use serde_json::Value;

impl Run {
    /// Judges the result of a call of `name`, whose declared output schema is `schema`.
    pub(super) fn judge_output(&mut self, name: &str, schema: Option<&Value>, exchange: &Exchange) {
        if let Some(result) = exchange.answer.result()
            && let Some(structured) = result.get("structuredContent")
        {
            let mirrored = mirrored(result, structured);
            let why = if mirrored {
                "structuredContent is mirrored in a text block".to_owned()
            } else {
                "no text block holds the structuredContent as JSON".to_owned()
            };
            self.found(checks::TEXT_MIRROR, mirrored, Some(name), why, Some(exchange));
        }
        let (Some(schema), Some(result)) = (schema, exchange.answer.result()) else { return };
        if result.get("isError") == Some(&Value::Bool(true)) {
            return;
        }
        let Some(validator) = lint::compile(schema) else { return };
        let problem = match result.get("structuredContent") {
            None => Some("a result without structuredContent, though the tool declares an outputSchema".to_owned()),
            Some(content) => validator.validate(content).err().map(|error| {
                format!(
                    "structuredContent does not validate against the outputSchema: {error} (at {})",
                    error.instance_path()
                )
            }),
        };
        let passed = problem.is_none();
        let why = problem.unwrap_or_else(|| "structuredContent validates".to_owned());
        self.found(checks::OUTPUT_CONFORMS, passed, Some(name), why, Some(exchange));
    }
}

/// Whether a text block of `result` holds `structured` as JSON.
fn mirrored(result: &Value, structured: &Value) -> bool {
    let blocks = result.get("content").and_then(Value::as_array);
    blocks.into_iter().flatten().any(|block| {
        block.get("text").and_then(Value::as_str).and_then(super::surrogate::parse).as_ref() == Some(structured)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_block_echoing_a_lone_surrogate_mirrors_the_structured_content_read_from_the_same_message() {
        // The TypeScript SDK's get_forecast given "\ud800": JSON.stringify writes the lone half in both places.
        let line = r#"{"jsonrpc":"2.0","id":22,"result":{"content":[{"type":"text","text":"{\"city\":\"\\ud800\",\"days\":[]}"}],"structuredContent":{"city":"\ud800","days":[]}}}"#;
        let message = super::super::surrogate::parse(line).expect("the message is read");
        let result = &message["result"];
        assert!(mirrored(result, &result["structuredContent"]));
        assert!(!mirrored(result, &json!({"city": "Paris", "days": []})));
        assert!(!mirrored(&json!({"content": [{"type": "text", "text": "not json"}]}), &json!({})));
    }
}
