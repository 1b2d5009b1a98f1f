//! The `AuditSink` port: one record per call, enough to rebuild what happened without storing secrets.
//!
//! Rule enforced here: every call, refused or not, yields exactly one [`AuditRecord`]; raw arguments are left
//! out unless configured, and even then sensitive and configured fields are redacted.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;
use std::sync::{Mutex, PoisonError};

/// What the authorization stage decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// No decision was made: the call was refused while decoding, or the facts needed to decide (the resource)
    /// could not be obtained because the lookup failed or the deadline ran out.
    NotEvaluated,
    /// Allowed.
    Allow,
    /// Refused.
    Deny,
}

/// One call, as the audit trail records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// The executor's id for the execution.
    pub request_id: String,
    /// Distributed trace id, when the caller gave one.
    pub trace_id: Option<String>,
    /// The model's call id.
    pub call_id: String,
    /// The tool name as called (truncated to 64 characters).
    pub tool: String,
    /// The tool's version, when the name resolved.
    pub tool_version: Option<String>,
    /// A short hash of the tool's input schema, when the name resolved.
    pub schema_version: Option<String>,
    /// From the trusted context.
    pub tenant_id: String,
    /// From the trusted context.
    pub subject_id: String,
    /// The business operation's key, for side-effecting tools that got that far.
    pub idempotency_key: Option<String>,
    /// The authorization decision.
    pub authorization: Decision,
    /// The approval presented, if any.
    pub approval_id: Option<String>,
    /// The caller's attempt number.
    pub attempt: u32,
    /// Wall-clock ms at arrival.
    pub started_ms: u64,
    /// Wall-clock ms deadline.
    pub deadline_ms: u64,
    /// Wall-clock ms at the answer.
    pub finished_ms: u64,
    /// `ok`, `error` or `replayed`.
    pub outcome: String,
    /// The error code, for failures.
    pub error_code: Option<String>,
    /// The downstream's request id, when the tool got one.
    pub downstream_request_id: Option<String>,
    /// SHA-256 of the canonical arguments, when they decoded.
    pub arguments_hash: Option<String>,
    /// The arguments with sensitive fields redacted; only when configured.
    pub arguments: Option<Value>,
    /// Notes for operators, e.g. `completion_fenced` when a stale attempt's result was not recorded.
    pub notes: Vec<String>,
}

/// Receives audit records.
pub trait AuditSink: Send + Sync {
    /// Records one call. Must not fail the call: sinks swallow or report their own errors.
    fn record(&self, record: AuditRecord);
}

/// Discards records.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAudit;

impl AuditSink for NoAudit {
    fn record(&self, _record: AuditRecord) {}
}

/// Keeps records in memory, for tests and the harness.
#[derive(Debug, Default)]
pub struct MemoryAudit {
    records: Mutex<Vec<AuditRecord>>,
}

impl MemoryAudit {
    /// An empty sink.
    pub fn new() -> MemoryAudit {
        MemoryAudit::default()
    }

    /// A copy of every record so far, in arrival order.
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl AuditSink for MemoryAudit {
    fn record(&self, record: AuditRecord) {
        self.records.lock().unwrap_or_else(PoisonError::into_inner).push(record);
    }
}

/// Writes one JSON object per line.
#[derive(Debug)]
pub struct JsonLinesAudit<W: Write + Send> {
    out: Mutex<W>,
}

impl<W: Write + Send> JsonLinesAudit<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> JsonLinesAudit<W> {
        JsonLinesAudit { out: Mutex::new(out) }
    }
}

impl<W: Write + Send> AuditSink for JsonLinesAudit<W> {
    fn record(&self, record: AuditRecord) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        // An audit sink must not fail the call it records; a broken writer loses lines, not calls.
        let _ = serde_json::to_writer(&mut *out, &record);
        let _ = out.write_all(b"\n");
    }
}

/// The placeholder for redacted values.
pub const REDACTED: &str = "[redacted]";

/// Replaces the values at `paths` (JSON pointers; `*` matches any array index or key) with [`REDACTED`].
pub fn redact(value: &mut Value, paths: &[String]) {
    for path in paths {
        let segments: Vec<String> =
            path.split('/').skip(1).map(|segment| segment.replace("~1", "/").replace("~0", "~")).collect();
        redact_at(value, &segments);
    }
}

fn redact_at(value: &mut Value, segments: &[String]) {
    let Some((first, rest)) = segments.split_first() else {
        *value = Value::String(REDACTED.to_owned());
        return;
    };
    match value {
        Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                if first == "*" || first == key {
                    redact_at(member, rest);
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                if first == "*" || *first == index.to_string() {
                    redact_at(item, rest);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redaction_replaces_nested_and_wildcard_paths() {
        let mut value = json!({"to": "a@b.c", "cards": [{"pan": "4111"}, {"pan": "5500"}], "a/b": 1});
        redact(&mut value, &["/cards/*/pan".to_owned(), "/a~1b".to_owned()]);
        assert_eq!(value, json!({"to": "a@b.c", "cards": [{"pan": REDACTED}, {"pan": REDACTED}], "a/b": REDACTED}));
    }
}
