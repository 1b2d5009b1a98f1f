//! The typed view of an envelope: read once per call when the answer arrives, then used by checks, timeline
//! and repro alike.
//!
//! Rule enforced here: this is the only place that reads an envelope's fields by name. The view is lenient on
//! purpose (a field of the wrong type reads as absent), because judging the envelope's shape is the
//! `envelope-schema` check's job, not the reader's; only an answer that is not an object with a boolean `ok`
//! is no envelope at all ([`Malformed`]).

use callproof_executor::ErrorCode;
use callproof_executor::error::{Category, Resolution};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// An envelope as the harness reads it, with the raw JSON kept for schema validation and timelines.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeView {
    ok: bool,
    error: Option<ErrorView>,
    meta: MetaView,
    raw: Value,
}

/// The `error` member of an envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorView {
    /// `code` as written (empty when absent or not a string).
    pub wire_code: String,
    /// `code`, when it is a code of the table.
    pub code: Option<ErrorCode>,
    /// `category`, when it is one.
    pub category: Option<Category>,
    /// `retryable`, when it is a boolean.
    pub retryable: Option<bool>,
    /// `resolution`, when it is one.
    pub resolution: Option<Resolution>,
    /// `details` (empty when absent or not an object).
    pub details: Map<String, Value>,
}

/// The `meta` member of an envelope.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetaView {
    /// `meta.request_id`.
    pub request_id: Option<String>,
    /// `meta.idempotency_key`.
    pub idempotency_key: Option<String>,
    /// `meta.replayed` (absent is not false: an expectation of `false` wants it written).
    pub replayed: Option<bool>,
    /// `meta.reconciled`.
    pub reconciled: Option<bool>,
}

/// An answer that is not an envelope at all.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Malformed {
    /// What came back.
    pub raw: Value,
    /// Why it is not an envelope.
    pub why: String,
}

impl EnvelopeView {
    /// Reads an answer.
    ///
    /// # Errors
    /// [`Malformed`] when it is not a JSON object with a boolean `ok`.
    pub fn parse(raw: Value) -> Result<EnvelopeView, Malformed> {
        let Some(object) = raw.as_object() else {
            return Err(Malformed { why: "the answer is not a JSON object".to_owned(), raw });
        };
        let Some(ok) = object.get("ok").and_then(Value::as_bool) else {
            return Err(Malformed { why: "`ok` is missing or not a boolean".to_owned(), raw });
        };
        let error = object.get("error").map(ErrorView::read);
        let meta = object.get("meta").map(MetaView::read).unwrap_or_default();
        Ok(EnvelopeView { ok, error, meta, raw })
    }

    /// `ok`.
    pub fn ok(&self) -> bool {
        self.ok
    }

    /// `error`, when present.
    pub fn error(&self) -> Option<&ErrorView> {
        self.error.as_ref()
    }

    /// The error code, when it is one of the table.
    pub fn code(&self) -> Option<ErrorCode> {
        self.error.as_ref().and_then(|error| error.code)
    }

    /// `result`, when present.
    pub fn result(&self) -> Option<&Value> {
        self.raw.get("result")
    }

    /// `meta`.
    pub fn meta(&self) -> &MetaView {
        &self.meta
    }

    /// Whether the answer says it replayed an earlier result.
    pub fn replayed(&self) -> bool {
        self.meta.replayed == Some(true)
    }

    /// The envelope as it came.
    pub fn raw(&self) -> &Value {
        &self.raw
    }
}

impl ErrorView {
    fn read(error: &Value) -> ErrorView {
        let text = |name: &str| error.get(name).and_then(Value::as_str);
        let wire_code = text("code").unwrap_or_default().to_owned();
        ErrorView {
            code: ErrorCode::from_wire(&wire_code),
            wire_code,
            category: typed(error, "category"),
            retryable: error.get("retryable").and_then(Value::as_bool),
            resolution: typed(error, "resolution"),
            details: error.get("details").and_then(Value::as_object).cloned().unwrap_or_default(),
        }
    }

    /// `details.<name>` as text.
    pub fn detail_str(&self, name: &str) -> Option<&str> {
        self.details.get(name).and_then(Value::as_str)
    }
}

/// A member read as a serde type (an enum by its wire name); absent when it is not one.
fn typed<T: serde::de::DeserializeOwned>(object: &Value, name: &str) -> Option<T> {
    object.get(name).and_then(|value| T::deserialize(value).ok())
}

impl MetaView {
    fn read(meta: &Value) -> MetaView {
        let text = |name: &str| meta.get(name).and_then(Value::as_str).map(str::to_owned);
        let flag = |name: &str| meta.get(name).and_then(Value::as_bool);
        MetaView {
            request_id: text("request_id"),
            idempotency_key: text("idempotency_key"),
            replayed: flag("replayed"),
            reconciled: flag("reconciled"),
        }
    }
}

/// The wire name of a serde enum value (`"retry_same_key"` → `retry_same_key`), `?` when absent.
pub(crate) fn wire<T: Serialize>(value: Option<T>) -> String {
    value
        .and_then(|value| serde_json::to_value(value).ok())
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

/// One line for evidence: `ok (replayed)` or `error timeout_unknown retryable=false resolution=reconcile`.
impl fmt::Display for EnvelopeView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ok {
            f.write_str("ok")?;
            if self.replayed() {
                f.write_str(" (replayed)")?;
            }
            if self.meta.reconciled == Some(true) {
                f.write_str(" (reconciled)")?;
            }
            return Ok(());
        }
        let Some(error) = &self.error else { return f.write_str("error without an error member") };
        let code = if error.wire_code.is_empty() { "?" } else { error.wire_code.as_str() };
        let retryable = error.retryable.map_or("?".to_owned(), |retryable| retryable.to_string());
        write!(f, "error {code} retryable={retryable} resolution={}", wire(error.resolution))
    }
}

/// Serialized as the envelope it came as, so transcripts in JSON show what the executor said.
impl Serialize for EnvelopeView {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_envelope_reads_as_typed_fields() {
        let view = EnvelopeView::parse(json!({
            "ok": false,
            "error": {"code": "dependency_unavailable", "category": "dependency", "retryable": true,
                      "resolution": "retry_same_key", "message": "m", "details": {"reason": "not_sent"}},
            "meta": {"request_id": "req_1", "idempotency_key": "k"}
        }))
        .expect("an envelope");
        assert_eq!(view.code(), Some(ErrorCode::DependencyUnavailable));
        let error = view.error().expect("an error");
        assert_eq!(error.category, Some(Category::Dependency));
        assert_eq!(error.resolution, Some(Resolution::RetrySameKey));
        assert_eq!(error.detail_str("reason"), Some("not_sent"));
        assert_eq!(view.meta().request_id.as_deref(), Some("req_1"));
        assert_eq!(view.to_string(), "error dependency_unavailable retryable=true resolution=retry_same_key");
    }

    #[test]
    fn fields_of_the_wrong_type_read_as_absent_and_unknown_codes_keep_their_text() {
        let view = EnvelopeView::parse(json!({"ok": false, "error": {"code": "made_up", "retryable": "yes"}}))
            .expect("still an envelope");
        let error = view.error().expect("an error");
        assert_eq!((error.code, error.wire_code.as_str(), error.retryable), (None, "made_up", None));
        assert_eq!(view.to_string(), "error made_up retryable=? resolution=?");
    }

    #[test]
    fn a_success_line_names_replay_and_reconciliation() {
        let view =
            EnvelopeView::parse(json!({"ok": true, "result": {}, "meta": {"replayed": true, "reconciled": true}}))
                .expect("an envelope");
        assert_eq!(view.to_string(), "ok (replayed) (reconciled)");
        assert_eq!(view.result(), Some(&json!({})));
    }

    #[test]
    fn an_answer_without_a_boolean_ok_is_not_an_envelope() {
        for raw in [json!("text"), json!([1]), json!({"ok": "true"}), json!({"error": {}})] {
            let malformed = EnvelopeView::parse(raw.clone()).expect_err("not an envelope");
            assert_eq!(malformed.raw, raw);
        }
    }

    #[test]
    fn a_view_serializes_as_the_envelope_it_came_as() {
        let raw = json!({"ok": true, "result": {"a": 1}, "meta": {"x": [1, 2]}});
        let view = EnvelopeView::parse(raw.clone()).expect("an envelope");
        assert_eq!(serde_json::to_value(&view).expect("json"), raw);
    }
}
