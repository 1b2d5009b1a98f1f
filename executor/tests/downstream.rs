//! Stage 6 through `Executor::execute`: what each downstream failure means for the caller and for the record,
//! and proof that a downstream's private words (secrets, traces, SQL, hostnames) never leave the executor.

mod support;

use callproof_executor::error::Resolution;
use callproof_executor::idempotency::State;
use callproof_executor::tool::{Failure, Rejection};
use std::sync::Arc;
use std::time::Duration;
use support::{CANARIES, FailingStore, Step, World, assert_code, details, refund};

/// Runs one refund whose tool answers `step`; returns the envelope and the record's state.
async fn refund_answering(step: Step) -> (World, callproof_executor::Envelope, State) {
    let world = World::new();
    world.tool("refund_order").script([step]);
    let envelope = world.execute(refund("ord_123", 100)).await;
    let state = world.record_of(&envelope).await.state;
    (world, envelope, state)
}

#[tokio::test]
async fn a_request_that_never_left_is_a_retryable_dependency_failure() {
    let (_, envelope, state) = refund_answering(Step::fail(Failure::NotSent)).await;
    assert_code(&envelope, "dependency_unavailable");
    let error = envelope.error.as_ref().expect("error");
    assert!(error.retryable());
    assert_eq!(error.resolution(), Resolution::RetrySameKey);
    assert_eq!(error.details()["reason"], "not_sent");
    assert_eq!(state, State::FailedRetryable);
}

#[tokio::test]
async fn an_unavailable_downstream_is_a_retryable_dependency_failure_with_its_status() {
    let (_, envelope, state) = refund_answering(Step::poisoned(Failure::Unavailable, Some(503))).await;
    assert_code(&envelope, "dependency_unavailable");
    assert!(envelope.error.as_ref().expect("error").retryable());
    assert_eq!(details(&envelope)["reason"], "unavailable");
    assert_eq!(details(&envelope)["downstream_status"], 503);
    assert_eq!(state, State::FailedRetryable);
}

#[tokio::test]
async fn a_rate_limit_says_when_to_retry() {
    let limited = Failure::RateLimited { retry_after: Some(Duration::from_millis(2_500)) };
    let (_, envelope, state) = refund_answering(Step::poisoned(limited, Some(429))).await;
    assert_code(&envelope, "rate_limited");
    let error = envelope.error.as_ref().expect("error");
    assert!(error.retryable());
    assert_eq!(error.resolution(), Resolution::RetryAfter);
    assert_eq!(error.details()["retry_after_ms"], 2_500);
    assert_eq!(state, State::FailedRetryable);
}

#[tokio::test]
async fn a_rate_limit_without_retry_after_still_names_a_wait() {
    let (_, envelope, _) = refund_answering(Step::fail(Failure::RateLimited { retry_after: None })).await;
    assert_code(&envelope, "rate_limited");
    assert_eq!(details(&envelope)["retry_after_ms"], 1_000);
}

#[tokio::test]
async fn a_connection_lost_after_sending_is_unknown_never_dependency_unavailable() {
    let (world, envelope, state) = refund_answering(Step::poisoned(Failure::Lost, None)).await;
    assert_code(&envelope, "timeout_unknown");
    let error = envelope.error.as_ref().expect("error");
    assert!(!error.retryable());
    assert_eq!(error.resolution(), Resolution::Reconcile);
    assert_eq!(error.details()["reason"], "connection_lost");
    assert_eq!(state, State::Unknown);
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
}

#[tokio::test]
async fn a_downstream_refusal_is_a_final_business_rejection() {
    let rejected = Failure::Rejected(Rejection::field("order_already_refunded", "order_id"));
    let (_, envelope, state) = refund_answering(Step::poisoned(rejected, Some(409))).await;
    assert_code(&envelope, "business_rejected");
    assert!(!envelope.error.as_ref().expect("error").retryable());
    assert_eq!(details(&envelope)["reason"], "order_already_refunded");
    assert_eq!(details(&envelope)["field"], "order_id");
    assert_eq!(details(&envelope)["downstream_status"], 409);
    assert_eq!(state, State::FailedFinal);
}

#[tokio::test]
async fn an_unreadable_success_body_is_output_invalid_and_final() {
    let (_, envelope, state) = refund_answering(Step::poisoned(Failure::Unreadable, Some(200))).await;
    assert_code(&envelope, "output_invalid");
    assert_eq!(details(&envelope)["reason"], "unreadable");
    assert_eq!(state, State::FailedFinal);
}

#[tokio::test]
async fn a_tool_that_panics_before_sending_is_an_internal_error_that_may_be_retried() {
    let (_, envelope, state) = refund_answering(Step::Panic { after_send: false }).await;
    assert_code(&envelope, "internal_error");
    assert_eq!(details(&envelope)["sent"], false);
    assert_eq!(state, State::FailedRetryable);
    assert!(!envelope.to_json().to_string().contains("scripted panic"));
}

#[tokio::test]
async fn a_tool_that_panics_after_sending_leaves_the_outcome_unknown() {
    let (_, envelope, state) = refund_answering(Step::Panic { after_send: true }).await;
    assert_code(&envelope, "internal_error");
    assert_eq!(details(&envelope)["sent"], true);
    assert_eq!(state, State::Unknown);
}

#[tokio::test]
async fn the_downstream_request_id_reaches_the_audit_record() {
    let (world, envelope, _) = refund_answering(Step::AnswerWithId("dsr_ok_1".to_owned())).await;
    assert!(envelope.ok);
    assert_eq!(world.audit_records()[0].downstream_request_id.as_deref(), Some("dsr_ok_1"));
    let (world, _, _) = refund_answering(Step::poisoned(Failure::Unavailable, Some(503))).await;
    assert_eq!(world.audit_records()[0].downstream_request_id.as_deref(), Some("dsr_42"));
}

#[tokio::test]
async fn no_downstream_diagnostic_ever_reaches_an_envelope_or_an_audit_record() {
    let failures = [
        Failure::NotSent,
        Failure::Unavailable,
        Failure::RateLimited { retry_after: Some(Duration::from_secs(1)) },
        Failure::Rejected(Rejection::field("order_closed", "order_id")),
        Failure::Lost,
        Failure::Unreadable,
    ];
    let world = World::new();
    let mut leaks = Vec::new();
    for (index, failure) in failures.into_iter().enumerate() {
        world.tool("refund_order").script([Step::poisoned(failure.clone(), Some(500))]);
        let envelope = world.execute(refund("ord_123", 100 + index as u64)).await;
        assert!(!envelope.ok);
        let text = envelope.to_json().to_string();
        let shown = serde_json::to_string(&callproof_executor::mapping::model_view(&envelope)).expect("json");
        for canary in CANARIES {
            if text.contains(canary) || shown.contains(canary) {
                leaks.push(format!("{failure:?} leaked {canary:?} into the envelope"));
            }
        }
    }
    for record in world.audit_records() {
        let text = serde_json::to_string(&record).expect("json");
        for canary in CANARIES {
            if text.contains(canary) {
                leaks.push(format!("audit record {} leaked {canary:?}", record.request_id));
            }
        }
    }
    assert!(leaks.is_empty(), "{leaks:#?}");
    assert_eq!(world.audit_records().len(), 6);
}

#[tokio::test]
async fn a_failing_idempotency_store_is_an_internal_error_whose_envelope_names_no_host() {
    let world = World::builder().store(Arc::new(FailingStore)).build();
    let envelope = world.execute(refund("ord_123", 100)).await;
    assert_code(&envelope, "internal_error");
    assert_eq!(details(&envelope)["reason"], "store_failed");
    assert!(!envelope.to_json().to_string().contains("db-primary"), "{:#}", envelope.to_json());
    // The store's own words go to the audit record, for operators (executor/tests/audit.rs), never to a caller.
    assert_eq!(world.tool_calls(), 0, "no side effect without a claimed key");
}
