//! The adapter protocol `callproof/1`: JSON lines over stdio between the harness and an executor process.
//!
//! Rule enforced here: this module is the harness's side of docs/protocol.md and nothing more: one message
//! per line, each a JSON object with a `type`; requests carry an `id` the answer echoes; arguments keep their
//! form on the wire (`{"raw": text}` stays text, byte for byte, `{"value": json}` stays parsed). The JSON
//! Schemas under docs/protocol/ are checked against these types by tests.

use crate::subject::SubjectCall;
use callproof_executor::{AuthContext, ToolCall};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this harness speaks.
pub const VERSION: &str = "callproof/1";

/// The capability an executor declares when its idempotency records survive a restart of its process.
pub const DURABLE_STORE: &str = "durable_store";

/// The first message: who the executor talks to, and the contract of the tools it implements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// Always `hello`.
    #[serde(rename = "type")]
    pub kind: String,
    /// [`VERSION`].
    pub protocol: String,
    /// One scenario run; unchanged across restarts of the executor within it. A durable store keeps the
    /// records of different sessions apart.
    pub session: String,
    /// The downstream (conformance app services), e.g. `http://127.0.0.1:41234`.
    pub downstream_url: String,
    /// The conformance app's catalog: the entries of scenarios/catalog/*.json.
    pub catalog: Vec<Value>,
}

/// One tool call to execute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Execute {
    /// Always `execute`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The request id; the answer carries it back. Unique within the process's lifetime.
    pub id: String,
    /// The model's call: `call_id`, `name`, `arguments` as `{"raw": text}` or `{"value": json}`.
    pub call: ToolCall,
    /// The trusted context.
    pub auth: AuthContext,
    /// The caller's business request id.
    pub business_request_id: Option<String>,
    /// The caller's attempt number, from 1.
    pub attempt: u32,
    /// Time budget, from the moment the line is read.
    pub budget_ms: u64,
}

impl Execute {
    /// The message for `call` under request id `id`.
    pub fn new(id: String, call: SubjectCall) -> Execute {
        Execute {
            kind: "execute".to_owned(),
            id,
            call: call.call,
            auth: call.auth,
            business_request_id: call.business_request_id,
            attempt: call.attempt,
            budget_ms: u64::try_from(call.budget.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

/// The executor's answer to [`Hello`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// Always `capabilities`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The version the executor speaks; must be [`VERSION`].
    pub protocol: String,
    /// The executor's name.
    pub name: String,
    /// The executor's version.
    pub version: String,
    /// The catalog tools it implements.
    pub tools: Vec<String>,
    /// Optional features, e.g. [`DURABLE_STORE`]. Unknown ones are ignored.
    #[serde(default)]
    pub features: Vec<String>,
}

impl Capabilities {
    /// Whether the executor declares `feature`.
    pub fn has(&self, feature: &str) -> bool {
        self.features.iter().any(|declared| declared == feature)
    }
}

/// A message from the executor after its capabilities.
#[derive(Debug, Clone, PartialEq)]
pub enum FromExecutor {
    /// The answer to one execute request.
    Result {
        /// The request id.
        id: String,
        /// The envelope.
        envelope: Value,
    },
    /// The executor could not process a message (and says why).
    Error {
        /// The request it concerns, when it could tell.
        id: Option<String>,
        /// Why.
        message: String,
    },
    /// Capabilities sent again, or any other message out of place.
    Unexpected(String),
}

impl FromExecutor {
    /// Reads one line.
    ///
    /// # Errors
    /// A sentence saying why the line is not a protocol message.
    pub fn parse(line: &str) -> Result<FromExecutor, String> {
        let value: Value = serde_json::from_str(line).map_err(|error| format!("a line that is not JSON ({error})"))?;
        let Some(members) = value.as_object() else {
            return Err("a line that is not a JSON object".to_owned());
        };
        match members.get("type").and_then(Value::as_str) {
            Some("result") => {
                let id = members.get("id").and_then(Value::as_str).ok_or("a result without a string `id`")?;
                let envelope = members.get("envelope").ok_or("a result without an `envelope`")?;
                if !envelope.is_object() {
                    return Err(format!("the result for id {id:?} has an envelope that is not an object"));
                }
                Ok(FromExecutor::Result { id: id.to_owned(), envelope: envelope.clone() })
            }
            Some("error") => Ok(FromExecutor::Error {
                id: members.get("id").and_then(Value::as_str).map(str::to_owned),
                message: members.get("message").and_then(Value::as_str).unwrap_or("(no message)").to_owned(),
            }),
            Some(other) => Ok(FromExecutor::Unexpected(other.to_owned())),
            None => Err("a message without a string `type`".to_owned()),
        }
    }
}

/// At most `max` characters of `text`, with a mark when cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        format!("{}… ({} bytes)", text.chars().take(max).collect::<String>(), text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_arguments_stay_text_on_the_wire() {
        let call = SubjectCall {
            call: ToolCall::raw("call_1", "refund_order", "{\"a\":1,\"a\":2}"),
            auth: AuthContext::new("u", "t", &["refunds:write"]),
            business_request_id: None,
            attempt: 1,
            budget: std::time::Duration::from_millis(250),
        };
        let line = serde_json::to_string(&Execute::new("7".into(), call)).expect("serializes");
        let back: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(back["call"]["arguments"]["raw"], "{\"a\":1,\"a\":2}");
        assert_eq!(back["budget_ms"], 250);
        assert_eq!(back["business_request_id"], Value::Null);
    }

    #[test]
    fn answers_are_read_and_breaks_named() {
        let ok = FromExecutor::parse(r#"{"type":"result","id":"1","envelope":{"ok":true}}"#).expect("parses");
        assert!(matches!(ok, FromExecutor::Result { id, .. } if id == "1"));
        assert!(FromExecutor::parse("hello").expect_err("not json").contains("not JSON"));
        assert!(FromExecutor::parse(r#"{"type":"result","id":1}"#).expect_err("id").contains("id"));
        assert!(FromExecutor::parse(r#"{"id":"1"}"#).expect_err("type").contains("type"));
    }
}
