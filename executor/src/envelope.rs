//! The envelope: the one shape every answer of the executor takes.
//!
//! Rule enforced here: an envelope is either `{ok: true, result, meta}` or `{ok: false, error, meta}`, never
//! both and never neither; the constructors are the only way to build one.

use crate::error::{ErrorBody, ErrorCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Tracing facts that travel with every answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    /// The executor's id for this execution.
    pub request_id: String,
    /// The model's id for this tool call (echoed; never part of the idempotency key).
    pub call_id: String,
    /// The caller's attempt number, starting at 1.
    pub attempt: u32,
    /// The idempotency key of the business operation, when the tool has side effects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// True when this answer is a stored outcome of an earlier attempt, not a new execution.
    pub replayed: bool,
    /// True when the outcome was established by querying the downstream after an unknown outcome.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reconciled: bool,
}

/// An answer: success with a result, or an error body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Whether the call succeeded.
    pub ok: bool,
    /// The validated tool output (success only).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub result: Option<Value>,
    /// The error (failure only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
    /// Tracing facts.
    pub meta: Meta,
}

/// Reads a present `result` as `Some`, even when it is JSON `null`: serde reads a null `Option` as `None`, which
/// would turn a stored success with a null result into an envelope with neither result nor error.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Envelope {
    /// A success.
    pub fn success(result: Value, meta: Meta) -> Envelope {
        Envelope { ok: true, result: Some(result), error: None, meta }
    }

    /// A failure.
    pub fn failure(error: ErrorBody, meta: Meta) -> Envelope {
        Envelope { ok: false, result: None, error: Some(error), meta }
    }

    /// The error code, for failures.
    pub fn code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(|error| error.code())
    }

    /// The envelope as JSON.
    pub fn to_json(&self) -> Value {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_value(self).expect("an envelope always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Meta {
        Meta {
            request_id: "req_1".into(),
            call_id: "call_1".into(),
            attempt: 1,
            idempotency_key: None,
            replayed: false,
            reconciled: false,
        }
    }

    #[test]
    fn success_has_result_and_no_error_member() {
        let json = Envelope::success(serde_json::json!({"a": 1}), meta()).to_json();
        assert_eq!(json["ok"], true);
        assert_eq!(json["result"]["a"], 1);
        assert!(json.get("error").is_none());
        assert!(json["meta"].get("idempotency_key").is_none());
        assert!(json["meta"].get("reconciled").is_none());
    }

    #[test]
    fn failure_round_trips_through_json() {
        let envelope = Envelope::failure(ErrorBody::new(ErrorCode::Forbidden, "no"), meta());
        let json = envelope.to_json();
        assert_eq!(json["error"]["code"], "forbidden");
        assert!(json.get("result").is_none());
        let back: Envelope = serde_json::from_value(json).expect("parse");
        assert_eq!(back, envelope);
    }
}
