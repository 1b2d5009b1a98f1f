//! The `Tool` port: what a tool declares and how the executor calls it.
//!
//! Rule enforced here: a tool reports *which side of the send line* a failure is on. [`Failure::NotSent`] and
//! the downstream's own refusals are known-not-applied; [`Failure::Lost`] (sent, no usable answer) and
//! [`Failure::UnexpectedAnswer`] (sent, answered outside the contract) are unknown, and the executor never
//! turns them into a retryable error.

use crate::auth::AuthContext;
use crate::deadline::Deadline;
use crate::resource::{Resource, ResourceRef};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How dangerous a tool's side effect is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// No side effect.
    Read,
    /// A side effect that can be repeated or undone.
    Write,
    /// Leaves the system: emails, messages, tickets.
    External,
    /// Moves money.
    Financial,
    /// Deletes or closes something.
    Destructive,
}

impl Risk {
    /// Whether calls of this risk have side effects (and so go through the idempotency store).
    pub const fn has_side_effect(self) -> bool {
        !matches!(self, Risk::Read)
    }

    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Risk::Read => "read",
            Risk::Write => "write",
            Risk::External => "external",
            Risk::Financial => "financial",
            Risk::Destructive => "destructive",
        }
    }
}

/// What a tool declares about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The exact, case-sensitive name.
    pub name: String,
    /// The tool's version, recorded in audit records.
    pub version: String,
    /// For the model.
    pub description: String,
    /// JSON Schema (Draft 2020-12) of the arguments. `"x-sensitive": true` on a property keeps its value out of
    /// error messages and audit records.
    pub input_schema: Value,
    /// JSON Schema (Draft 2020-12) of the result.
    pub output_schema: Value,
    /// Risk level.
    pub risk: Risk,
    /// Scopes the caller must hold, all of them.
    #[serde(default)]
    pub required_scopes: Vec<String>,
    /// Whether a user approval bound to the exact arguments is required.
    #[serde(default)]
    pub requires_approval: bool,
    /// Whether sending the same request twice has the effect of sending it once (e.g. a PUT). Such a tool may
    /// be re-executed after an unknown outcome without a status query.
    #[serde(default)]
    pub repeatable: bool,
}

/// A downstream's refusal, with a stable reason the model can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// A stable snake_case reason, e.g. `amount_exceeds_refundable`.
    pub reason: String,
    /// The argument the rejection is about, if any.
    pub field: Option<String>,
}

impl Rejection {
    /// A rejection about one field.
    pub fn field(reason: &str, field: &str) -> Rejection {
        Rejection { reason: reason.to_owned(), field: Some(field.to_owned()) }
    }
}

/// Why a tool call did not produce a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The request never left: the downstream cannot have applied it.
    NotSent,
    /// The downstream answered that it did not apply the request and is unavailable now.
    Unavailable,
    /// The downstream refused for load and did not apply the request.
    RateLimited {
        /// From `Retry-After`, when the downstream gave one.
        retry_after: Option<Duration>,
    },
    /// The downstream refused the request for a business reason; nothing was applied.
    Rejected(Rejection),
    /// The request was sent and no usable answer came back: it may have been applied.
    Lost,
    /// The request was sent and the downstream answered outside its contract (a redirect, which is never
    /// followed): it may have been applied.
    UnexpectedAnswer,
    /// The downstream answered success with a body we cannot read: applied, but the result is unusable.
    Unreadable,
}

impl Failure {
    /// A stable snake_case name of the kind, for audit notes. Carries nothing the downstream said.
    pub const fn kind(&self) -> &'static str {
        match self {
            Failure::NotSent => "not_sent",
            Failure::Unavailable => "unavailable",
            Failure::RateLimited { .. } => "rate_limited",
            Failure::Rejected(_) => "rejected",
            Failure::Lost => "lost",
            Failure::UnexpectedAnswer => "unexpected_answer",
            Failure::Unreadable => "unreadable",
        }
    }
}

/// A failure plus private diagnostics. `diagnostic` may hold downstream text; it is for operators' logs and
/// is never copied into an envelope or an audit record by the reference executor.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFailure {
    /// What happened.
    pub failure: Failure,
    /// The downstream's HTTP status, if one arrived.
    pub status: Option<u16>,
    /// Raw downstream text. Untrusted and possibly secret.
    pub diagnostic: Option<String>,
    /// The downstream's request id, for the audit record.
    pub downstream_request_id: Option<String>,
}

impl From<Failure> for ToolFailure {
    fn from(failure: Failure) -> ToolFailure {
        ToolFailure { failure, status: None, diagnostic: None, downstream_request_id: None }
    }
}

/// What a status query learned about an earlier attempt with the same idempotency key.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Applied; here is the result it produced.
    Completed(Value),
    /// Refused by the downstream; it will never apply.
    Rejected(Rejection),
    /// Accepted and still running.
    Pending,
    /// The downstream has no trace of the key.
    NotFound,
}

/// A tool's successful answer plus the facts the audit record wants.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The result, still to be checked against the output schema.
    pub value: Value,
    /// The downstream's request id, if it gave one.
    pub downstream_request_id: Option<String>,
}

impl From<Value> for Output {
    fn from(value: Value) -> Output {
        Output { value, downstream_request_id: None }
    }
}

/// Everything a tool gets besides its arguments.
pub struct ToolContext<'a> {
    /// The caller.
    pub auth: &'a AuthContext,
    /// The idempotency key to send downstream (`Idempotency-Key`), for tools with side effects.
    pub idempotency_key: Option<&'a str>,
    /// The call's absolute deadline; send the remaining time downstream.
    pub deadline: &'a Deadline,
    /// The executor's request id.
    pub request_id: &'a str,
    sent: &'a AtomicBool,
}

impl<'a> ToolContext<'a> {
    /// A context; `sent` is flipped by [`ToolContext::mark_sent`].
    pub fn new(
        auth: &'a AuthContext,
        idempotency_key: Option<&'a str>,
        deadline: &'a Deadline,
        request_id: &'a str,
        sent: &'a AtomicBool,
    ) -> ToolContext<'a> {
        ToolContext { auth, idempotency_key, deadline, request_id, sent }
    }

    /// Time left until the deadline (send it downstream; use it as the request timeout).
    pub fn remaining(&self) -> Duration {
        self.deadline.instant().saturating_duration_since(tokio::time::Instant::now())
    }

    /// Call right before the request may reach the downstream. After this, a timeout is an unknown outcome.
    pub fn mark_sent(&self) {
        self.sent.store(true, Ordering::Release);
    }
}

/// A tool the executor can call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The tool's declaration.
    fn spec(&self) -> &ToolSpec;

    /// The resource these (already valid) arguments act on, for ownership checks and conflict keys.
    fn resource(&self, _arguments: &Value) -> Option<ResourceRef> {
        None
    }

    /// Business rules over valid arguments and the loaded resource (e.g. amount ≤ refundable).
    ///
    /// # Errors
    /// A [`Rejection`] when a rule refuses the call.
    fn check_business_rules(&self, _arguments: &Value, _resource: Option<&Resource>) -> Result<(), Rejection> {
        Ok(())
    }

    /// Performs the call. Send `ctx.idempotency_key` and the remaining deadline downstream.
    ///
    /// # Errors
    /// A [`ToolFailure`] telling whether the request may have been applied.
    async fn invoke(&self, ctx: &ToolContext<'_>, arguments: &Value) -> Result<Output, ToolFailure>;

    /// The tool's status query, if it has one. One method, so that "has a status query" and "can be asked"
    /// cannot disagree; a tool without one is reconciled by its `repeatable` flag, or by a person.
    fn status_query(&self) -> Option<&dyn StatusQuery> {
        None
    }

    /// The part the tool plays in a task, if it is a task tool (a poll's final answer is recorded once).
    fn task_role(&self) -> Option<crate::task::TaskRole> {
        None
    }
}

/// How a tool asks the downstream about an earlier attempt, for reconciliation.
#[async_trait]
pub trait StatusQuery: Send + Sync {
    /// Asks the downstream what became of an earlier attempt with `ctx.idempotency_key`.
    ///
    /// # Errors
    /// A [`ToolFailure`] when the downstream could not answer.
    async fn status(&self, ctx: &ToolContext<'_>, arguments: &Value) -> Result<Status, ToolFailure>;
}
