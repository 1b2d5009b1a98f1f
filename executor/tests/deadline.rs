//! Stages 5 and 6 through `Executor::execute`: one absolute deadline per call, and a timeout that knows which
//! side of the send line it fell on. Tokio's clock is paused, so hanging tools cost no real time.

mod support;

use async_trait::async_trait;
use callproof_executor::audit::{AuditNote, Cause};
use callproof_executor::error::Resolution;
use callproof_executor::idempotency::State;
use callproof_executor::resource::{Resource, ResourceRef, Resources};
use callproof_executor::tool::{Failure, ToolContext, ToolFailure};
use std::sync::Arc;
use std::time::Duration;
use support::{ManualClock, RequestExt, Step, World, assert_code, call, details, refund};
use tokio::time::Instant;

fn paused_world() -> World {
    World::builder().clock(ManualClock::new()).build()
}

fn budget(request: callproof_executor::Request, millis: u64) -> callproof_executor::Request {
    request.budget(Duration::from_millis(millis))
}

#[tokio::test(start_paused = true)]
async fn a_zero_budget_answers_timeout_not_started_without_invoking_the_tool() {
    let world = paused_world();
    let envelope = world.execute(budget(refund("ord_123", 100).business_request("biz_0"), 0)).await;
    assert_code(&envelope, "timeout_not_started");
    let error = envelope.error.as_ref().expect("error");
    assert!(error.retryable());
    assert_eq!(error.resolution(), Resolution::RetrySameKey);
    assert_eq!(error.details()["reason"], "deadline_elapsed");
    assert_eq!(world.tool_calls(), 0);
    assert_eq!(envelope.meta.idempotency_key, None, "refused before the order was even looked up");

    let retry = world.execute(refund("ord_123", 100).business_request("biz_0").call_id("call_2")).await;
    assert!(retry.ok && !retry.meta.replayed, "{:#}", retry.to_json());
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_zero_budget_on_a_tool_without_a_resource_keeps_its_key_for_the_retry() {
    let world = paused_world();
    let email = || call("send_email", r#"{"to":"a@example.com","subject":"Hi","body":"x"}"#).business_request("m_0");
    let envelope = world.execute(budget(email(), 0)).await;
    assert_code(&envelope, "timeout_not_started");
    assert_eq!(world.tool_calls(), 0);
    assert_eq!(world.record_of(&envelope).await.state, State::FailedRetryable);

    let retry = world.execute(email().call_id("call_2")).await;
    assert!(retry.ok, "{:#}", retry.to_json());
    let invocations = world.tool("send_email").invocations();
    assert_eq!(invocations.len(), 1);
    assert_eq!(invocations[0].key, envelope.meta.idempotency_key, "the retry used the same key");
}

#[tokio::test(start_paused = true)]
async fn a_zero_budget_read_is_not_started_either() {
    let world = paused_world();
    let envelope = world.execute(budget(call("get_weather", r#"{"location":"Oslo","units":"celsius"}"#), 0)).await;
    assert_code(&envelope, "timeout_not_started");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_tool_that_hangs_after_sending_ends_in_timeout_unknown_at_the_deadline() {
    let world = paused_world();
    world.tool("refund_order").script([Step::HangAfterSend]);
    let started = Instant::now();
    let envelope = world.execute(budget(refund("ord_123", 100), 5_000)).await;
    assert_eq!(started.elapsed(), Duration::from_secs(5), "the answer comes at the deadline, not later");
    assert_code(&envelope, "timeout_unknown");
    let error = envelope.error.as_ref().expect("error");
    assert!(!error.retryable(), "it may have been applied");
    assert_eq!(error.resolution(), Resolution::Reconcile);
    assert_eq!(error.details()["reason"], "deadline_elapsed");
    assert_eq!(world.record_of(&envelope).await.state, State::Unknown);
}

#[tokio::test(start_paused = true)]
async fn a_tool_that_hangs_before_sending_ends_in_timeout_not_started() {
    let world = paused_world();
    world.tool("refund_order").script([Step::HangBeforeSend]);
    let envelope = world.execute(budget(refund("ord_123", 100), 5_000)).await;
    assert_code(&envelope, "timeout_not_started");
    assert!(envelope.error.as_ref().expect("error").retryable());
    assert_eq!(world.record_of(&envelope).await.state, State::FailedRetryable);
}

#[tokio::test(start_paused = true)]
async fn a_read_that_sent_and_never_answered_is_safe_to_retry() {
    let world = paused_world();
    world.tool("get_weather").script([Step::HangAfterSend]);
    let envelope = world.execute(budget(call("get_weather", r#"{"location":"Oslo","units":null}"#), 2_000)).await;
    assert_code(&envelope, "dependency_unavailable");
    let error = envelope.error.as_ref().expect("error");
    assert!(error.retryable(), "a read has no side effect to be unsure about");
    assert_eq!(error.details()["reason"], "no_answer");
}

#[tokio::test]
async fn a_read_whose_connection_was_lost_is_safe_to_retry() {
    let world = World::new();
    world.tool("get_order").script([Step::fail(Failure::Lost)]);
    let envelope = world.execute(call("get_order", r#"{"order_id":"ord_123"}"#)).await;
    assert_code(&envelope, "dependency_unavailable");
    assert_eq!(details(&envelope)["reason"], "no_answer");
    assert!(world.execute(call("get_order", r#"{"order_id":"ord_123"}"#)).await.ok);
}

#[tokio::test(start_paused = true)]
async fn a_slow_answer_after_the_deadline_is_unknown_once_sent() {
    let world = paused_world();
    let slow = |send: bool| {
        let wait = Step::Sleep(Duration::from_secs(8), Box::new(Step::Default));
        if send { Step::Send(Box::new(wait)) } else { wait }
    };
    world.tool("refund_order").script([slow(true), slow(false)]);
    assert_code(&world.execute(budget(refund("ord_123", 100), 5_000)).await, "timeout_unknown");
    assert_code(&world.execute(budget(refund("ord_123", 200), 5_000)).await, "timeout_not_started");
}

#[tokio::test(start_paused = true)]
async fn a_slow_answer_inside_the_deadline_succeeds() {
    let world = paused_world();
    world
        .tool("refund_order")
        .script([Step::Send(Box::new(Step::Sleep(Duration::from_millis(4_900), Box::new(Step::Default))))]);
    let envelope = world.execute(budget(refund("ord_123", 100), 5_000)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
}

#[tokio::test(start_paused = true)]
async fn the_tool_receives_the_time_left_of_the_callers_budget() {
    let world = paused_world();
    world.execute(budget(refund("ord_123", 100), 2_500)).await;
    assert_eq!(world.tool("refund_order").invocations()[0].remaining, Duration::from_millis(2_500));
}

#[tokio::test(start_paused = true)]
async fn the_time_spent_before_the_tool_counts_against_the_deadline() {
    let world = World::builder().clock(ManualClock::new()).resources(Arc::new(SlowResources(Some(1_000)))).build();
    world.execute(budget(refund("ord_123", 100), 2_500)).await;
    assert_eq!(world.tool("refund_order").invocations()[0].remaining, Duration::from_millis(1_500));
}

#[tokio::test(start_paused = true)]
async fn a_resource_lookup_that_outlives_the_deadline_is_not_started() {
    let world = World::builder().clock(ManualClock::new()).resources(Arc::new(SlowResources(None))).build();
    let envelope = world.execute(budget(refund("ord_123", 100), 1_000)).await;
    assert_code(&envelope, "timeout_not_started");
    assert_eq!(details(&envelope)["reason"], "deadline_elapsed");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn a_failing_resource_lookup_is_a_dependency_failure_not_a_refusal() {
    let world = World::builder().resources(Arc::new(BrokenResources)).build();
    let envelope = world.execute(refund("ord_123", 100)).await;
    assert_code(&envelope, "dependency_unavailable");
    assert_eq!(details(&envelope)["reason"], "resource_lookup_failed");
    assert!(!envelope.to_json().to_string().contains("db-primary"), "{:#}", envelope.to_json());
    assert_eq!(world.tool_calls(), 0);
    let audit = &world.audit_records()[0];
    assert_eq!(audit.authorization, callproof_executor::audit::Decision::NotEvaluated, "an outage is not a denial");
    let cause = Cause::Failed { failure: "not_sent".to_owned(), downstream_status: None };
    assert_eq!(audit.notes, vec![AuditNote::ResourceLookupFailed { cause }], "the cause is kept for operators");
    let text = serde_json::to_string(audit).expect("json");
    assert!(!text.contains("db-primary"), "the downstream's own words are not: {text}");
}

/// Answers from the seeded records after a delay; `None` never answers.
struct SlowResources(Option<u64>);

#[async_trait]
impl Resources for SlowResources {
    async fn load(&self, reference: &ResourceRef, ctx: &ToolContext<'_>) -> Result<Option<Resource>, ToolFailure> {
        match self.0 {
            Some(millis) => tokio::time::sleep(Duration::from_millis(millis)).await,
            None => std::future::pending::<()>().await,
        }
        support::seeded_resources().load(reference, ctx).await
    }
}

/// A system of record that cannot be reached.
struct BrokenResources;

#[async_trait]
impl Resources for BrokenResources {
    async fn load(&self, _reference: &ResourceRef, _ctx: &ToolContext<'_>) -> Result<Option<Resource>, ToolFailure> {
        Err(ToolFailure {
            failure: Failure::NotSent,
            status: None,
            diagnostic: Some("connect to db-primary-03.internal.acme.example:5432 refused".to_owned()),
            downstream_request_id: None,
        })
    }
}
