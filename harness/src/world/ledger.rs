//! The ledger and the request log: the ground truth every check is judged against.
//!
//! Rule enforced here: an effect is in the ledger if and only if the downstream committed it, with the
//! request that caused it and the key that came with it. Checks never ask the executor what happened; they
//! read this.

use serde::Serialize;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// The kinds of side effect the conformance app has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectKind {
    /// A refund (financial).
    Refund,
    /// An email sent (external).
    Email,
    /// An account closed (destructive).
    Deletion,
    /// A preference written (repeatable: identical writes are one effect).
    Preference,
    /// An export job started (a task; its fate is in the world's task truth).
    Export,
    /// A cancel request recorded for an export job (repeatable: one per job, however often it is asked).
    Cancellation,
}

impl EffectKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [EffectKind; 6] = [
        EffectKind::Refund,
        EffectKind::Email,
        EffectKind::Deletion,
        EffectKind::Preference,
        EffectKind::Export,
        EffectKind::Cancellation,
    ];

    /// The kind named `name` in a scenario file (`refunds`, ...).
    pub fn from_name(name: &str) -> Option<EffectKind> {
        EffectKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The name used in scenario files and reports.
    pub fn name(self) -> &'static str {
        match self {
            EffectKind::Refund => "refunds",
            EffectKind::Email => "emails",
            EffectKind::Deletion => "deletions",
            EffectKind::Preference => "preferences",
            EffectKind::Export => "exports",
            EffectKind::Cancellation => "cancellations",
        }
    }
}

/// One committed side effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Effect {
    /// What kind.
    pub kind: EffectKind,
    /// The effect's identity. Two entries with one id are one effect (a repeated identical PUT).
    pub effect_id: String,
    /// Index of the request that committed it.
    pub request: usize,
    /// The `Idempotency-Key` it came with.
    pub key: Option<String>,
    /// The tenant owning the target.
    pub tenant_id: String,
    /// The owner of the target.
    pub owner_id: String,
    /// The target (order, account, recipient, preference key).
    pub target: String,
    /// The amount, for refunds.
    pub amount: Option<i64>,
    /// When the downstream committed it (ms since the world started).
    pub committed_ms: u64,
}

/// What the downstream did with a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Handling {
    /// Answered without any side effect (reads, status queries, refusals).
    NoEffect,
    /// Committed the effect with this ledger index.
    Committed(usize),
    /// A repeated key: answered with the stored reply; nothing new committed.
    Deduplicated,
    /// The deadline header ran out before the slow commit: not committed.
    AbandonedAtDeadline,
}

/// One request the downstream received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestRecord {
    /// Arrival order, from 0.
    pub index: usize,
    /// Arrival (ms since the world started).
    pub at_ms: u64,
    /// `"METHOD /first-segment"`, e.g. `POST /refunds`.
    pub endpoint: String,
    /// Method.
    pub method: String,
    /// Path and query.
    pub path: String,
    /// The `Idempotency-Key` header.
    pub idempotency_key: Option<String>,
    /// The `X-Deadline-Ms` header.
    pub deadline_ms: Option<String>,
    /// The `X-Request-Id` header (the executor's request id).
    pub request_id: Option<String>,
    /// The `X-Tenant-Id` header.
    pub tenant_id: Option<String>,
    /// The `X-Subject-Id` header.
    pub subject_id: Option<String>,
    /// Whether it is a side-effecting endpoint (POST, PUT, DELETE).
    pub side_effect: bool,
    /// Whether it is a status query by key.
    pub status_query: bool,
    /// The fault that applied to it, if any, with its parameters.
    pub fault: Option<super::Fired>,
    /// What the downstream did.
    pub handling: Handling,
    /// The status answered, or `None` when the connection was dropped.
    pub status: Option<u16>,
    /// When the answer left (ms since the world started, after any injected delay), or `None` when the
    /// connection was dropped instead. Lets a check tell a late answer from a prompt one.
    pub answered_ms: Option<u64>,
    /// The body answered (for evidence; truncated).
    pub reply: String,
    /// The request's body, when it is at most [`MAX_KEPT_BODY`] bytes (a POST or PUT carries the call's
    /// arguments: `body-is-arguments`); `None` when it was longer. Not in reports: the transcript's evidence
    /// quotes the call's arguments already.
    #[serde(skip)]
    pub body: Option<Vec<u8>>,
    /// The body answered, whole, when the answer was a success (2xx) of at most [`MAX_KEPT_BODY`] bytes:
    /// `result-matches-downstream` compares every `ok` result with the successes of the run. `None` for any other
    /// answer, a dropped connection or a longer body. Not in reports: `reply` quotes it.
    #[serde(skip)]
    pub answered: Option<Arc<Answered>>,
}

/// A success's body as the downstream sent it, shared by every copy of its record and read as JSON at most once
/// (exploration takes a transcript, and judges it, after every step).
#[derive(Debug)]
pub struct Answered {
    bytes: Vec<u8>,
    json: OnceLock<Option<Value>>,
}

impl Answered {
    /// The body `bytes`, not read yet.
    pub fn new(bytes: Vec<u8>) -> Arc<Answered> {
        Arc::new(Answered { bytes, json: OnceLock::new() })
    }

    /// The body as JSON, or `None` when it is not JSON.
    pub fn json(&self) -> Option<&Value> {
        self.json.get_or_init(|| serde_json::from_slice(&self.bytes).ok()).as_ref()
    }
}

impl PartialEq for Answered {
    fn eq(&self, other: &Answered) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for Answered {}

/// Longest request body a request record keeps (the longest argument text a shipped scenario sends is 64 KiB).
pub(super) const MAX_KEPT_BODY: usize = 256 * 1024;
