//! Settling an attempt: what a tool's answer (or silence) means for the caller and for the record.
//!
//! Rule enforced here: an answer maps to a next state by what is *known* about the side effect. Known not
//! applied → FAILED_RETRYABLE (retry with the same key); refused for good → FAILED_FINAL; may have been
//! applied (deadline passed after sending, connection lost after sending, an answer outside the contract such
//! as a redirect, a crash inside the tool) → UNKNOWN with `timeout_unknown`/`internal_error`, never retryable. Messages are fixed text: a downstream's
//! words never reach an envelope.

use crate::business::rejected;
use crate::error::{ErrorBody, ErrorCode};
use crate::idempotency::State;
use crate::tool::{Failure, Output, ToolFailure};
use serde_json::Value;
use std::time::Duration;

/// Retry-After assumed when a rate-limiting downstream names none.
pub const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(1);

/// How one call of the tool ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt {
    /// The tool returned.
    Finished(Result<Output, ToolFailure>),
    /// The deadline passed first; `sent` tells whether the tool had marked its request as sent.
    TimedOut {
        /// Whether the request may have reached the downstream.
        sent: bool,
    },
    /// The tool panicked; whether it had sent is `sent`.
    Panicked {
        /// Whether the request may have reached the downstream.
        sent: bool,
    },
}

/// The settled attempt: the record's next state and the caller's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    /// Next state of the idempotency record.
    pub state: State,
    /// The result (to be validated) or the error.
    pub result: Result<Value, ErrorBody>,
    /// The downstream's request id, if known.
    pub downstream_request_id: Option<String>,
}

/// The reference settlement.
pub fn settle(attempt: Attempt) -> Settled {
    match attempt {
        Attempt::Finished(Ok(output)) => Settled {
            state: State::Succeeded,
            result: Ok(output.value),
            downstream_request_id: output.downstream_request_id,
        },
        Attempt::Finished(Err(failure)) => {
            let (state, error) = failure_outcome(&failure);
            Settled { state, result: Err(error), downstream_request_id: failure.downstream_request_id }
        }
        Attempt::TimedOut { sent: true } => unknown(
            ErrorBody::new(
                ErrorCode::TimeoutUnknown,
                "the deadline passed after the request was sent; its outcome is unknown",
            )
            .with("reason", "deadline_elapsed"),
        ),
        Attempt::TimedOut { sent: false } => Settled {
            state: State::FailedRetryable,
            result: Err(ErrorBody::new(
                ErrorCode::TimeoutNotStarted,
                "the deadline passed before the request was sent",
            )
            .with("reason", "deadline_elapsed")),
            downstream_request_id: None,
        },
        Attempt::Panicked { sent } => {
            let error = ErrorBody::new(ErrorCode::InternalError, "the tool failed unexpectedly").with("sent", sent);
            if sent {
                unknown(error)
            } else {
                Settled { state: State::FailedRetryable, result: Err(error), downstream_request_id: None }
            }
        }
    }
}

/// A read has no side effect to be unsure about: when its answer is lost, late or outside the contract,
/// reading again is safe, so the unknown outcome becomes a retryable `dependency_unavailable`.
pub fn for_read(settled: Settled) -> Settled {
    let Err(unknown) = &settled.result else { return settled };
    if unknown.code() != ErrorCode::TimeoutUnknown {
        return settled;
    }
    let mut error = if unknown.details().get("reason").and_then(Value::as_str) == Some(UNEXPECTED_ANSWER) {
        ErrorBody::new(
            ErrorCode::DependencyUnavailable,
            "the downstream answered outside its contract; reading again is safe",
        )
        .with("reason", UNEXPECTED_ANSWER)
    } else {
        ErrorBody::new(ErrorCode::DependencyUnavailable, "the downstream did not answer in time; reading again is safe")
            .with("reason", "no_answer")
    };
    if let Some(status) = unknown.details().get("downstream_status") {
        error = error.with("downstream_status", status.clone());
    }
    Settled { state: State::FailedRetryable, result: Err(error), ..settled }
}

/// The reason of an answer outside the downstream's contract (a redirect).
const UNEXPECTED_ANSWER: &str = "unexpected_answer";

fn unknown(error: ErrorBody) -> Settled {
    Settled { state: State::Unknown, result: Err(error), downstream_request_id: None }
}

/// The next state and error of a tool failure.
pub fn failure_outcome(failure: &ToolFailure) -> (State, ErrorBody) {
    match &failure.failure {
        Failure::NotSent => (
            State::FailedRetryable,
            ErrorBody::new(
                ErrorCode::DependencyUnavailable,
                "the downstream service could not be reached; nothing was sent",
            )
            .with("reason", "not_sent"),
        ),
        Failure::Unavailable => {
            let body = ErrorBody::new(
                ErrorCode::DependencyUnavailable,
                "the downstream service is unavailable and did not apply the request",
            )
            .with("reason", "unavailable");
            (State::FailedRetryable, with_status(body, failure.status))
        }
        Failure::RateLimited { retry_after } => {
            let wait = retry_after.unwrap_or(DEFAULT_RETRY_AFTER);
            (
                State::FailedRetryable,
                ErrorBody::new(ErrorCode::RateLimited, "the downstream service is rate limiting; retry later")
                    .with("retry_after_ms", wait.as_millis() as u64),
            )
        }
        Failure::Rejected(rejection) => (State::FailedFinal, with_status(rejected(rejection), failure.status)),
        Failure::Lost => (
            State::Unknown,
            ErrorBody::new(
                ErrorCode::TimeoutUnknown,
                "the connection was lost after the request was sent; its outcome is unknown",
            )
            .with("reason", "connection_lost"),
        ),
        Failure::UnexpectedAnswer => {
            let body = ErrorBody::new(
                ErrorCode::TimeoutUnknown,
                "the downstream answered outside its contract after the request was sent; its outcome is unknown",
            )
            .with("reason", UNEXPECTED_ANSWER);
            (State::Unknown, with_status(body, failure.status))
        }
        Failure::Unreadable => (
            State::FailedFinal,
            ErrorBody::new(ErrorCode::OutputInvalid, "the downstream reported success with a body that cannot be read")
                .with("reason", "unreadable"),
        ),
    }
}

fn with_status(body: ErrorBody, status: Option<u16>) -> ErrorBody {
    match status {
        Some(status) => body.with("downstream_status", status),
        None => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(failure: Failure) -> Settled {
        settle(Attempt::Finished(Err(ToolFailure { diagnostic: Some("SECRET body".into()), ..failure.into() })))
    }

    #[test]
    fn a_lost_connection_is_unknown_and_never_retryable() {
        let settled = failed(Failure::Lost);
        assert_eq!(settled.state, State::Unknown);
        let error = settled.result.expect_err("error");
        assert_eq!(error.code(), ErrorCode::TimeoutUnknown);
        assert!(!error.retryable());
    }

    #[test]
    fn a_timeout_is_unknown_only_after_sending() {
        assert_eq!(settle(Attempt::TimedOut { sent: true }).state, State::Unknown);
        let not_sent = settle(Attempt::TimedOut { sent: false });
        assert_eq!(not_sent.state, State::FailedRetryable);
        assert_eq!(not_sent.result.expect_err("error").code(), ErrorCode::TimeoutNotStarted);
    }

    #[test]
    fn downstream_text_never_reaches_the_error() {
        for failure in [
            Failure::NotSent,
            Failure::Unavailable,
            Failure::Lost,
            Failure::Unreadable,
            Failure::UnexpectedAnswer,
            Failure::RateLimited { retry_after: None },
        ] {
            let error = failed(failure).result.expect_err("error");
            let json = serde_json::to_string(&error).expect("json");
            assert!(!json.contains("SECRET"), "{json}");
        }
    }

    #[test]
    fn an_unanswered_read_is_retryable() {
        let settled = for_read(settle(Attempt::TimedOut { sent: true }));
        let error = settled.result.expect_err("error");
        assert_eq!(error.code(), ErrorCode::DependencyUnavailable);
        assert!(error.retryable());
        let write = settle(Attempt::TimedOut { sent: true });
        assert_eq!(write.result.expect_err("error").code(), ErrorCode::TimeoutUnknown);
    }

    #[test]
    fn an_answer_outside_the_contract_is_unknown_for_a_write_and_retryable_for_a_read() {
        let answered =
            || settle(Attempt::Finished(Err(ToolFailure { status: Some(302), ..Failure::UnexpectedAnswer.into() })));
        let write = answered();
        assert_eq!(write.state, State::Unknown);
        let error = write.result.expect_err("error");
        assert_eq!(error.code(), ErrorCode::TimeoutUnknown);
        assert!(!error.retryable());
        assert_eq!(error.details()["reason"], "unexpected_answer");
        assert_eq!(error.details()["downstream_status"], 302);
        let read = for_read(answered());
        assert_eq!(read.state, State::FailedRetryable);
        let error = read.result.expect_err("error");
        assert_eq!(error.code(), ErrorCode::DependencyUnavailable);
        assert!(error.retryable());
        assert_eq!(error.details()["reason"], "unexpected_answer");
        assert_eq!(error.details()["downstream_status"], 302);
    }

    #[test]
    fn rate_limits_always_say_when_to_retry() {
        let error =
            failed(Failure::RateLimited { retry_after: Some(Duration::from_secs(3)) }).result.expect_err("error");
        assert_eq!(error.details()["retry_after_ms"], 3000);
        let error = failed(Failure::RateLimited { retry_after: None }).result.expect_err("error");
        assert_eq!(error.details()["retry_after_ms"], 1000);
    }
}
