//! The `AuditSink` port: one record per call, enough to rebuild what happened without storing secrets.
//!
//! Rule enforced here: every call, refused or not, yields exactly one [`AuditRecord`]; raw arguments are left
//! out unless configured, and even then sensitive and configured fields are redacted. What went wrong inside
//! the executor (a store failure, a panic, a failed lookup) is kept as a typed [`AuditNote`] for operators;
//! a downstream's own words are never copied here.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// How a call ended, as the audit trail records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditOutcome {
    /// A success, executed by this call.
    Ok,
    /// A failure.
    Error,
    /// The stored answer of an earlier attempt, success or failure.
    Replayed,
}

/// The idempotency-store operation a failure happened in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreStep {
    /// Claiming the record, or moving it while deciding what to do (lease expiry, retake, retry budget).
    Claim,
    /// Settling an UNKNOWN record after reconciliation.
    Reconcile,
    /// Recording the final state: the answer stands, the record did not move.
    Record,
}

/// Why a request through a tool or the resource port gave no usable answer. Never the downstream's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cause {
    /// The tool reported a failure.
    Failed {
        /// The failure's kind ([`crate::tool::Failure::kind`]).
        failure: String,
        /// The downstream's HTTP status, if one arrived.
        downstream_status: Option<u16>,
    },
    /// The tool panicked.
    Panicked,
    /// The plan said to ask the downstream, but the tool has no status query.
    NoStatusQuery,
    /// The deadline ran out.
    DeadlineElapsed,
}

impl Cause {
    /// The cause of a tool failure: its kind and status, without its diagnostic.
    pub fn of(failure: &crate::tool::ToolFailure) -> Cause {
        Cause::Failed { failure: failure.failure.kind().to_owned(), downstream_status: failure.status }
    }
}

/// Something an operator should know about a call, beyond its envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "snake_case")]
pub enum AuditNote {
    /// The idempotency store failed. At `claim` or `reconcile` the call answered `internal_error`; at `record`
    /// the answer stands but the record did not move.
    StoreFailed {
        /// Where.
        step: StoreStep,
        /// The store's error, for operators' logs only.
        cause: String,
    },
    /// A stale attempt's result was not recorded: its lease had expired and the record moved on.
    CompletionFenced,
    /// The tool panicked; `sent` tells whether it had marked its request as sent.
    ToolPanicked {
        /// Whether the request may have reached the downstream.
        sent: bool,
    },
    /// The resource needed for the ownership check could not be loaded.
    ResourceLookupFailed {
        /// Why.
        cause: Cause,
    },
    /// The status query that should have resolved an UNKNOWN record gave no answer.
    ReconciliationFailed {
        /// Why.
        cause: Cause,
    },
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
    /// How the call ended.
    pub outcome: AuditOutcome,
    /// The error code, for failures.
    pub error_code: Option<String>,
    /// The downstream's request id, when the tool got one.
    pub downstream_request_id: Option<String>,
    /// SHA-256 of the canonical arguments, when they decoded.
    pub arguments_hash: Option<String>,
    /// The arguments with sensitive fields redacted; only when configured.
    pub arguments: Option<Value>,
    /// Notes for operators, e.g. [`AuditNote::CompletionFenced`] when a stale attempt's result was not recorded.
    pub notes: Vec<AuditNote>,
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
    lost: AtomicU64,
    last_failure: Mutex<Option<std::io::ErrorKind>>,
}

impl<W: Write + Send> JsonLinesAudit<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> JsonLinesAudit<W> {
        JsonLinesAudit { out: Mutex::new(out), lost: AtomicU64::new(0), last_failure: Mutex::new(None) }
    }

    /// Records that could not be written so far, and the kind of the last write error.
    pub fn lost(&self) -> (u64, Option<std::io::ErrorKind>) {
        (self.lost.load(Ordering::Relaxed), *self.last_failure.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl<W: Write + Send> AuditSink for JsonLinesAudit<W> {
    fn record(&self, record: AuditRecord) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        // An audit sink must not fail the call it records; a broken writer loses lines, not calls, and counts
        // them so an operator can see it.
        let written = serde_json::to_writer(&mut *out, &record).map_err(std::io::Error::from);
        if let Err(error) = written.and_then(|()| out.write_all(b"\n")) {
            self.lost.fetch_add(1, Ordering::Relaxed);
            *self.last_failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(error.kind());
        }
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

    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _buf: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(std::io::ErrorKind::StorageFull))
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_broken_writer_loses_lines_and_counts_them_with_the_last_error() {
        let sink = JsonLinesAudit::new(Broken);
        let record: AuditRecord = serde_json::from_value(json!({
            "request_id": "r", "trace_id": null, "call_id": "c", "tool": "t", "tool_version": null,
            "schema_version": null, "tenant_id": "t", "subject_id": "s", "idempotency_key": null,
            "authorization": "allow", "approval_id": null, "attempt": 1, "started_ms": 0, "deadline_ms": 0,
            "finished_ms": 0, "outcome": "replayed", "error_code": null, "downstream_request_id": null,
            "arguments_hash": null, "arguments": null,
            "notes": [{"note": "store_failed", "step": "record", "cause": "disk full"}, {"note": "completion_fenced"}]
        }))
        .expect("an audit record");
        assert_eq!(record.notes[0], AuditNote::StoreFailed { step: StoreStep::Record, cause: "disk full".into() });
        sink.record(record.clone());
        sink.record(record);
        assert_eq!(sink.lost(), (2, Some(std::io::ErrorKind::StorageFull)));
    }

    #[test]
    fn redaction_replaces_nested_and_wildcard_paths() {
        let mut value = json!({"to": "a@b.c", "cards": [{"pan": "4111"}, {"pan": "5500"}], "a/b": 1});
        redact(&mut value, &["/cards/*/pan".to_owned(), "/a~1b".to_owned()]);
        assert_eq!(value, json!({"to": "a@b.c", "cards": [{"pan": REDACTED}, {"pan": REDACTED}], "a/b": REDACTED}));
    }
}
