//! Stable error codes: one enum, wire strings written in one exhaustive `match`, one table row per code.
//!
//! Rule enforced here: a code's category, retryability, resolution and effect are facts of the code, never
//! of the call site. [`ErrorBody::new`] is the only way to build an error body and its fields are private,
//! so an envelope can never claim `retryable: true` for a code the table says is final (the one exception is
//! the deliberately broken `lying-retry-flags` mutant, through a hook that exists only with the `mutants`
//! feature). Codes are append-only: a released wire string
//! is never renamed or removed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// Every error an executor can answer with. The wire form is [`ErrorCode::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorCode {
    /// The raw arguments are not valid JSON (no leniency of any kind).
    InvalidJson,
    /// The arguments are JSON but break a structural limit: too large, too deep, a duplicate key, not an object.
    InvalidArguments,
    /// The arguments do not match the tool's input schema (including implicit coercions we refuse).
    SchemaViolation,
    /// No tool has exactly this name.
    ToolNotFound,
    /// The caller's identity is missing, invalid or expired.
    Unauthorized,
    /// The caller may not use this tool, lacks the scope, or may not touch this resource.
    Forbidden,
    /// The tool needs a user approval bound to these exact arguments, and none matches.
    ApprovalRequired,
    /// The request is well formed and authorized, but a business rule refuses it.
    BusinessRejected,
    /// The business request was seen before with different arguments.
    IdempotencyConflict,
    /// Another attempt of the same business operation is running or not yet settled.
    OperationInProgress,
    /// The downstream is unavailable and did not apply the request.
    DependencyUnavailable,
    /// The downstream asked us to slow down; it did not apply the request.
    RateLimited,
    /// The deadline ran out before the side effect could start.
    TimeoutNotStarted,
    /// The request may have been applied: the deadline ran out or the connection was lost after sending.
    TimeoutUnknown,
    /// The tool's output does not match its output schema; it is withheld.
    OutputInvalid,
    /// The executor failed in a way no caller caused.
    InternalError,
    /// A retryable failure happened too often for this business operation; retries stop here.
    RetryBudgetExhausted,
}

/// The layer an error belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The tool call itself is malformed (syntax, shape, schema).
    Input,
    /// The tool call does not name a known tool.
    Protocol,
    /// Identity, permission or approval.
    Authorization,
    /// A business rule of the tool or its downstream.
    Business,
    /// The idempotency record of the business operation.
    Idempotency,
    /// The downstream service.
    Dependency,
    /// The deadline of the call.
    Timeout,
    /// The tool's result contract.
    Contract,
    /// The executor itself.
    Internal,
}

/// What the caller (model, agent loop or operator) should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// Fix the arguments and call again.
    RepairArguments,
    /// Refresh the tool catalog; the name is not known.
    RefreshTools,
    /// Authenticate again.
    Reauthenticate,
    /// Stop: retrying cannot help.
    Stop,
    /// Ask the user (change the request, or approve it).
    AskUser,
    /// Poll later with the same business request.
    Poll,
    /// Retry the same business request (the executor reuses the same idempotency key).
    RetrySameKey,
    /// Retry the same business request after `details.retry_after_ms`.
    RetryAfter,
    /// Do not retry blindly: reconcile (retry the same business request, which queries the outcome first).
    Reconcile,
    /// A person should inspect the tool and its downstream.
    Inspect,
}

/// What a failed call tells about the side effect of *this* call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Known: this call caused no side effect.
    None,
    /// This call may have caused the side effect.
    Unknown,
}

/// One row of the code table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CodeInfo {
    /// The wire string.
    pub code: &'static str,
    /// The layer.
    pub category: Category,
    /// Whether repeating the same request may succeed.
    pub retryable: bool,
    /// The next step.
    pub resolution: Resolution,
    /// Whether the error may be written back to the model.
    pub expose_to_model: bool,
    /// Whether the message may be shown to the end user.
    pub expose_to_user: bool,
    /// What the error says about the side effect of this call.
    pub effect: Effect,
}

impl ErrorCode {
    /// Every code, in table order. Append new codes at the end.
    pub const ALL: [ErrorCode; 17] = [
        ErrorCode::InvalidJson,
        ErrorCode::InvalidArguments,
        ErrorCode::SchemaViolation,
        ErrorCode::ToolNotFound,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::ApprovalRequired,
        ErrorCode::BusinessRejected,
        ErrorCode::IdempotencyConflict,
        ErrorCode::OperationInProgress,
        ErrorCode::DependencyUnavailable,
        ErrorCode::RateLimited,
        ErrorCode::TimeoutNotStarted,
        ErrorCode::TimeoutUnknown,
        ErrorCode::OutputInvalid,
        ErrorCode::InternalError,
        ErrorCode::RetryBudgetExhausted,
    ];

    /// The stable wire string. This match is the only place wire strings are written.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::SchemaViolation => "schema_violation",
            ErrorCode::ToolNotFound => "tool_not_found",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::ApprovalRequired => "approval_required",
            ErrorCode::BusinessRejected => "business_rejected",
            ErrorCode::IdempotencyConflict => "idempotency_conflict",
            ErrorCode::OperationInProgress => "operation_in_progress",
            ErrorCode::DependencyUnavailable => "dependency_unavailable",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::TimeoutNotStarted => "timeout_not_started",
            ErrorCode::TimeoutUnknown => "timeout_unknown",
            ErrorCode::OutputInvalid => "output_invalid",
            ErrorCode::InternalError => "internal_error",
            ErrorCode::RetryBudgetExhausted => "retry_budget_exhausted",
        }
    }

    /// Parses a wire string. Unknown strings give `None` (a newer peer may send codes we do not know).
    pub fn from_wire(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|known| known.as_str() == code)
    }

    /// The table row of this code.
    pub const fn info(self) -> CodeInfo {
        use Category as C;
        use Effect::{None as NoEffect, Unknown as MaybeEffect};
        use Resolution as R;
        let (category, retryable, resolution, expose_to_model, expose_to_user, effect) = match self {
            ErrorCode::InvalidJson => (C::Input, false, R::RepairArguments, true, false, NoEffect),
            ErrorCode::InvalidArguments => (C::Input, false, R::RepairArguments, true, false, NoEffect),
            ErrorCode::SchemaViolation => (C::Input, false, R::RepairArguments, true, false, NoEffect),
            ErrorCode::ToolNotFound => (C::Protocol, false, R::RefreshTools, true, false, NoEffect),
            ErrorCode::Unauthorized => (C::Authorization, false, R::Reauthenticate, true, true, NoEffect),
            ErrorCode::Forbidden => (C::Authorization, false, R::Stop, true, true, NoEffect),
            ErrorCode::ApprovalRequired => (C::Authorization, false, R::AskUser, true, true, NoEffect),
            ErrorCode::BusinessRejected => (C::Business, false, R::AskUser, true, true, NoEffect),
            ErrorCode::IdempotencyConflict => (C::Idempotency, false, R::Stop, true, false, NoEffect),
            ErrorCode::OperationInProgress => (C::Idempotency, true, R::Poll, true, true, NoEffect),
            ErrorCode::DependencyUnavailable => (C::Dependency, true, R::RetrySameKey, true, true, NoEffect),
            ErrorCode::RateLimited => (C::Dependency, true, R::RetryAfter, true, true, NoEffect),
            ErrorCode::TimeoutNotStarted => (C::Timeout, true, R::RetrySameKey, true, true, NoEffect),
            ErrorCode::TimeoutUnknown => (C::Timeout, false, R::Reconcile, true, true, MaybeEffect),
            ErrorCode::OutputInvalid => (C::Contract, false, R::Inspect, true, false, MaybeEffect),
            ErrorCode::InternalError => (C::Internal, false, R::Inspect, true, false, MaybeEffect),
            ErrorCode::RetryBudgetExhausted => (C::Idempotency, false, R::Stop, true, true, NoEffect),
        };
        CodeInfo { code: self.as_str(), category, retryable, resolution, expose_to_model, expose_to_user, effect }
    }

    /// The whole table, in code order.
    pub fn table() -> Vec<CodeInfo> {
        ErrorCode::ALL.into_iter().map(ErrorCode::info).collect()
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = String::deserialize(deserializer)?;
        ErrorCode::from_wire(&wire).ok_or_else(|| serde::de::Error::custom(format_args!("unknown error code `{wire}`")))
    }
}

/// The `error` member of a failed envelope.
///
/// The flags come from the code table; only `message` and `details` vary per call. The fields are private so
/// that this holds by construction: build one with [`ErrorBody::new`] (or read back one that was).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    code: ErrorCode,
    category: Category,
    message: String,
    retryable: bool,
    resolution: Resolution,
    expose_to_model: bool,
    expose_to_user: bool,
    details: Map<String, Value>,
}

impl ErrorBody {
    /// Builds an error body whose flags agree with the code table.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorBody {
        let info = code.info();
        ErrorBody {
            code,
            category: info.category,
            message: message.into(),
            retryable: info.retryable,
            resolution: info.resolution,
            expose_to_model: info.expose_to_model,
            expose_to_user: info.expose_to_user,
            details: Map::new(),
        }
    }

    /// Adds one detail.
    #[must_use]
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ErrorBody {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// Machine-matchable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The layer, from the table.
    pub fn category(&self) -> Category {
        self.category
    }

    /// For people. No stable format; never secrets, stack traces, SQL, hostnames or downstream bodies.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the same business request may be retried, from the table.
    pub fn retryable(&self) -> bool {
        self.retryable
    }

    /// What the caller should do next, from the table.
    pub fn resolution(&self) -> Resolution {
        self.resolution
    }

    /// Whether the model may see the error, from the table.
    pub fn expose_to_model(&self) -> bool {
        self.expose_to_model
    }

    /// Whether the user may see the error, from the table.
    pub fn expose_to_user(&self) -> bool {
        self.expose_to_user
    }

    /// Machine-readable facts (path, keyword, reason, retry_after_ms, ...).
    pub fn details(&self) -> &Map<String, Value> {
        &self.details
    }
}

/// Hooks for the known-bad executors of [`crate::mutants`]: each breaks a rule of this module on purpose, and
/// none exists in a build without the `mutants` feature.
#[cfg(feature = "mutants")]
impl ErrorBody {
    /// Overrides the table's flags (the `lying-retry-flags` mutant).
    pub fn forge_flags(&mut self, retryable: bool, resolution: Resolution) {
        self.retryable = retryable;
        self.resolution = resolution;
    }

    /// Replaces the message, whatever it says (the `leaky-errors` mutant).
    pub fn forge_message(&mut self, message: String) {
        self.message = message;
    }

    /// The details, to change at will (the `errors-without-details` and `drops-retry-after` mutants).
    pub fn forge_details(&mut self) -> &mut Map<String, Value> {
        &mut self.details
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wire_string_round_trips_and_is_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "duplicate wire string {code}");
            assert_eq!(ErrorCode::from_wire(code.as_str()), Some(code));
            let json = serde_json::to_string(&code).expect("serialize");
            assert_eq!(json, format!("\"{}\"", code.as_str()));
        }
        assert_eq!(ErrorCode::from_wire("Invalid_Json"), None);
    }

    #[test]
    fn an_unknown_effect_is_never_retryable() {
        for info in ErrorCode::table() {
            if info.effect == Effect::Unknown {
                assert!(!info.retryable, "{} may have acted, so it must not be retryable", info.code);
            }
        }
    }

    #[test]
    fn error_body_takes_its_flags_from_the_table() {
        let body = ErrorBody::new(ErrorCode::TimeoutUnknown, "x");
        assert!(!body.retryable);
        assert_eq!(body.resolution, Resolution::Reconcile);
        let body = ErrorBody::new(ErrorCode::RateLimited, "x").with("retry_after_ms", 1000);
        assert!(body.retryable);
        assert_eq!(body.details["retry_after_ms"], 1000);
    }
}
