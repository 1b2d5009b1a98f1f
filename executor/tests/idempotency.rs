//! Stage 3 through `Executor::execute`: one business operation, one key, at most one side effect at a time;
//! settled outcomes replay, unknown ones are reconciled before anything is sent again.

mod support;

use callproof_executor::Config;
use callproof_executor::Envelope;
use callproof_executor::audit::AuditNote;
use callproof_executor::error::Resolution;
use callproof_executor::idempotency::{State, Update, Version};
use callproof_executor::store::{Forward, MemoryStore, Store, StoreError};
use callproof_executor::tool::{Failure, Rejection, Status};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use support::{
    CAROL, Gate, ManualClock, OTHER_TENANT, RequestExt, Step, World, assert_code, call, caller, code, details, refund,
};

fn biz(amount: u64, call_id: &str) -> callproof_executor::Request {
    refund("ord_123", amount).business_request("biz_1").call_id(call_id)
}

#[tokio::test]
async fn a_new_call_id_for_the_same_business_request_replays_without_invoking_again() {
    let world = World::new();
    let first = world.execute(biz(100, "call_1")).await;
    assert!(first.ok);
    let second = world.execute(biz(100, "call_2").attempt(2)).await;
    assert!(second.ok, "{:#}", second.to_json());
    assert!(second.meta.replayed);
    assert_eq!(second.meta.call_id, "call_2", "the answer belongs to the new call");
    assert_eq!(second.meta.attempt, 2);
    assert_eq!(second.meta.idempotency_key, first.meta.idempotency_key);
    assert_eq!(second.result, first.result, "the stored result, not a new one");
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
}

#[tokio::test]
async fn without_a_business_request_id_equal_arguments_in_any_spelling_are_one_operation() {
    let world = World::new();
    let first =
        world.execute(call("refund_order", r#"{"order_id":"ord_123","amount":100,"reason":"duplicate"}"#)).await;
    let respelled = call("refund_order", "{ \"reason\": \"duplicate\",\n \"amount\": 100, \"order_id\": \"ord_123\" }");
    let second = world.execute(respelled.call_id("call_2")).await;
    assert!(second.meta.replayed, "{:#}", second.to_json());
    assert_eq!(first.meta.idempotency_key, second.meta.idempotency_key);
    let third = world.execute(refund("ord_123", 101).call_id("call_3")).await;
    assert!(!third.meta.replayed, "different arguments are a different operation");
    assert_ne!(third.meta.idempotency_key, first.meta.idempotency_key);
    assert_eq!(world.tool("refund_order").invocations().len(), 2);
}

#[tokio::test]
async fn changed_arguments_under_one_business_request_conflict_without_side_effects() {
    let world = World::new();
    let first = world.execute(biz(100, "call_1")).await;
    let conflict = world.execute(biz(200, "call_2")).await;
    assert_code(&conflict, "idempotency_conflict");
    let error = conflict.error.as_ref().expect("error");
    assert!(!error.retryable());
    assert_eq!(error.details()["reason"], "arguments_changed");
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
    let record = world.record_of(&first).await;
    assert_eq!(record.state, State::Succeeded, "the conflict leaves the record alone");
    assert_eq!(
        *record.fingerprint,
        support::arguments_hash(&json!({"order_id":"ord_123","amount":100,"reason":"duplicate"}))
    );
}

#[tokio::test]
async fn a_business_request_id_is_scoped_to_its_tenant_subject_and_tool() {
    let world = World::new();
    let alice = world.execute(biz(100, "call_1")).await;
    let carol =
        world.execute(refund("ord_globex", 100).business_request("biz_1").by(caller(CAROL, OTHER_TENANT))).await;
    assert!(carol.ok && !carol.meta.replayed, "{:#}", carol.to_json());
    assert_ne!(alice.meta.idempotency_key, carol.meta.idempotency_key);
    let email = call("send_email", r#"{"to":"a@example.com","subject":"Hi","body":"x"}"#).business_request("biz_1");
    let email = world.execute(email).await;
    assert!(email.ok && !email.meta.replayed, "{:#}", email.to_json());
    assert_eq!(world.tool("refund_order").invocations().len(), 2);
}

#[tokio::test]
async fn a_duplicate_while_the_first_attempt_runs_is_told_to_poll() {
    let world = Arc::new(World::new());
    let gate = Gate::new();
    world.tool("refund_order").script([Step::Gate(gate.clone(), Box::new(Step::Default))]);
    let first = tokio::spawn({
        let world = Arc::clone(&world);
        async move { world.execute(biz(100, "call_1")).await }
    });
    gate.entered(1).await;

    let duplicate = world.execute(biz(100, "call_2")).await;
    assert_code(&duplicate, "operation_in_progress");
    let error = duplicate.error.as_ref().expect("error");
    assert!(error.retryable());
    assert_eq!(error.resolution(), Resolution::Poll);
    assert!(error.details()["retry_after_ms"].as_u64().expect("retry_after_ms") >= 100);
    assert_eq!(world.record_of(&duplicate).await.state, State::InProgress);

    gate.open();
    let first = first.await.expect("the first attempt finishes");
    assert!(first.ok);
    let later = world.execute(biz(100, "call_3")).await;
    assert!(later.ok && later.meta.replayed);
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
}

#[tokio::test]
async fn a_retryable_failure_is_retried_with_the_same_key() {
    let world = World::new();
    world.tool("refund_order").script([Step::fail(Failure::NotSent), Step::Default]);
    let first = world.execute(biz(100, "call_1")).await;
    assert_code(&first, "dependency_unavailable");
    assert_eq!(world.record_of(&first).await.state, State::FailedRetryable);

    let second = world.execute(biz(100, "call_2").attempt(2)).await;
    assert!(second.ok, "{:#}", second.to_json());
    assert!(!second.meta.replayed, "a retry of a failure executes again");
    let invocations = world.tool("refund_order").invocations();
    assert_eq!(invocations.len(), 2);
    assert!(invocations[0].key.is_some());
    assert_eq!(invocations[0].key, invocations[1].key, "the downstream sees one Idempotency-Key");
    assert_eq!(invocations[1].key, second.meta.idempotency_key);
    let record = world.record_of(&second).await;
    assert_eq!((record.state, record.attempts, record.epoch), (State::Succeeded, 2, 2));
}

#[tokio::test]
async fn a_spent_retry_budget_stops_retries_for_good() {
    let world = World::builder().config(Config { max_attempts: 2, ..Config::default() }).build();
    world.tool("refund_order").script([Step::fail(Failure::Unavailable), Step::fail(Failure::NotSent)]);
    assert_code(&world.execute(biz(100, "call_1")).await, "dependency_unavailable");
    assert_code(&world.execute(biz(100, "call_2")).await, "dependency_unavailable");
    let third = world.execute(biz(100, "call_3")).await;
    assert_code(&third, "retry_budget_exhausted");
    assert!(!third.error.as_ref().expect("error").retryable());
    assert_eq!(details(&third)["attempts"], 2);
    assert_eq!(world.tool("refund_order").invocations().len(), 2);
    assert_eq!(world.record_of(&third).await.state, State::FailedFinal);

    let fourth = world.execute(biz(100, "call_4")).await;
    assert_code(&fourth, "retry_budget_exhausted");
    assert!(fourth.meta.replayed);
    assert_eq!(world.tool("refund_order").invocations().len(), 2);
}

// ---- unknown outcomes -------------------------------------------------------------------------------------

/// A world whose refund of `biz_1` lost its connection after sending: the record is UNKNOWN.
async fn after_a_lost_refund(world: &World) -> callproof_executor::Envelope {
    world.tool("refund_order").script([Step::fail(Failure::Lost)]);
    let lost = world.execute(biz(100, "call_1")).await;
    assert_code(&lost, "timeout_unknown");
    assert_eq!(world.record_of(&lost).await.state, State::Unknown);
    lost
}

#[tokio::test]
async fn an_unknown_outcome_that_completed_downstream_is_answered_as_a_success() {
    let world = World::new();
    let lost = after_a_lost_refund(&world).await;
    let result = json!({"refund_id": "rf_downstream", "order_id": "ord_123", "amount": 100, "status": "completed"});
    world.tool("refund_order").script_status([Ok(Status::Completed(result.clone()))]);

    let retry = world.execute(biz(100, "call_2")).await;
    assert!(retry.ok, "{:#}", retry.to_json());
    assert!(retry.meta.reconciled);
    assert_eq!(retry.result.as_ref(), Some(&result));
    let tool = world.tool("refund_order");
    assert_eq!(tool.invocations().len(), 1, "reconciled, not re-sent");
    assert_eq!(tool.status_queries()[0].key, lost.meta.idempotency_key, "the query asks about the same key");
    assert_eq!(world.record_of(&retry).await.state, State::Succeeded);

    let replay = world.execute(biz(100, "call_3")).await;
    assert!(replay.ok && replay.meta.replayed && replay.meta.reconciled, "{:#}", replay.to_json());
    assert_eq!(tool.status_queries().len(), 1);
}

#[tokio::test]
async fn an_unknown_outcome_the_downstream_rejected_is_a_final_business_rejection() {
    let world = World::new();
    after_a_lost_refund(&world).await;
    world.tool("refund_order").script_status([Ok(Status::Rejected(Rejection::field("order_closed", "order_id")))]);
    let retry = world.execute(biz(100, "call_2")).await;
    assert_code(&retry, "business_rejected");
    assert_eq!(details(&retry)["reason"], "order_closed");
    assert!(retry.meta.reconciled);
    assert_eq!(world.record_of(&retry).await.state, State::FailedFinal);
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
}

#[tokio::test]
async fn an_unknown_outcome_still_pending_downstream_is_told_to_poll() {
    let world = World::new();
    after_a_lost_refund(&world).await;
    world.tool("refund_order").script_status([Ok(Status::Pending)]);
    let retry = world.execute(biz(100, "call_2")).await;
    assert_code(&retry, "operation_in_progress");
    assert_eq!(details(&retry)["reason"], "downstream_pending");
    assert_eq!(world.record_of(&retry).await.state, State::Unknown);
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
}

#[tokio::test]
async fn an_unknown_outcome_whose_status_query_fails_stays_unknown() {
    let world = World::new();
    after_a_lost_refund(&world).await;
    world.tool("refund_order").script_status([Err(Failure::Unavailable.into())]);
    let retry = world.execute(biz(100, "call_2")).await;
    assert_code(&retry, "dependency_unavailable");
    assert_eq!(details(&retry)["reason"], "reconciliation_failed");
    assert_eq!(world.record_of(&retry).await.state, State::Unknown);
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn not_found_before_the_earlier_deadline_waits_and_after_it_executes_again_with_the_same_key() {
    let clock = ManualClock::new();
    let world = World::builder().clock(clock.clone()).build();
    world.tool("refund_order").script([Step::fail(Failure::Lost)]);
    let lost = world.execute(biz(100, "call_1").budget(Duration::from_secs(5))).await;
    assert_code(&lost, "timeout_unknown");

    world.tool("refund_order").script_status([Ok(Status::NotFound), Ok(Status::NotFound)]);
    let early = world.execute(biz(100, "call_2")).await;
    assert_code(&early, "operation_in_progress");
    assert_eq!(details(&early)["reason"], "awaiting_earlier_deadline");
    assert_eq!(details(&early)["retry_after_ms"], 5000, "until the earlier attempt's deadline");
    assert_eq!(world.tool("refund_order").invocations().len(), 1, "the earlier request may still land");
    assert_eq!(world.record_of(&early).await.state, State::Unknown);

    tokio::time::advance(Duration::from_secs(6)).await;
    let late = world.execute(biz(100, "call_3")).await;
    assert!(late.ok, "{:#}", late.to_json());
    assert!(!late.meta.replayed);
    let invocations = world.tool("refund_order").invocations();
    assert_eq!(invocations.len(), 2);
    assert_eq!(invocations[0].key, invocations[1].key);
    assert_eq!(world.record_of(&late).await.state, State::Succeeded);
}

#[tokio::test]
async fn a_repeatable_tool_without_a_status_query_is_executed_again_with_the_same_key() {
    let world = World::new();
    let tool = world.tool("set_preference");
    assert!(callproof_executor::Tool::status_query(tool).is_none());
    tool.script([Step::fail(Failure::Lost)]);
    let request = || call("set_preference", r#"{"key":"theme","value":"dark"}"#).business_request("pref_1");
    assert_code(&world.execute(request()).await, "timeout_unknown");
    let retry = world.execute(request().call_id("call_2")).await;
    assert!(retry.ok, "{:#}", retry.to_json());
    let invocations = tool.invocations();
    assert_eq!(invocations.len(), 2);
    assert_eq!(invocations[0].key, invocations[1].key);
}

#[tokio::test]
async fn an_unknown_outcome_nothing_can_resolve_keeps_answering_timeout_unknown() {
    let world = World::new();
    let tool = world.tool("send_email");
    tool.set_status_query(false);
    tool.script([Step::fail(Failure::Lost)]);
    let request = || call("send_email", r#"{"to":"a@example.com","subject":"Hi","body":"x"}"#).business_request("m_1");
    let lost = world.execute(request()).await;
    assert_code(&lost, "timeout_unknown");
    for attempt in 2..=3 {
        let retry = world.execute(request().attempt(attempt)).await;
        assert_code(&retry, "timeout_unknown");
        assert_eq!(retry.error.as_ref().expect("error").resolution(), Resolution::Reconcile);
    }
    assert_eq!(tool.invocations().len(), 1, "an email is never sent twice on a guess");
    assert_eq!(world.record_of(&lost).await.state, State::Unknown);
}

/// Starts a refund whose tool enters `gate` and never leaves, then drops the execution, as a crashed process
/// would: the record stays IN_PROGRESS with its lease.
async fn crash_mid_refund(world: &Arc<World>, tool: &str, arguments: &str) -> String {
    let gate = Gate::new();
    world.tool(tool).script([Step::Gate(gate.clone(), Box::new(Step::HangAfterSend))]);
    let running = tokio::spawn({
        let world = Arc::clone(world);
        let request = call(tool, arguments).business_request("crash_1").budget(Duration::from_secs(5));
        async move { world.execute(request).await }
    });
    gate.entered(1).await;
    running.abort();
    assert!(running.await.expect_err("aborted").is_cancelled());
    let key = world.tool(tool).invocations()[0].key.clone().expect("a key");
    assert_eq!(world.record(&key).await.state, State::InProgress);
    key
}

#[tokio::test(start_paused = true)]
async fn an_expired_lease_becomes_unknown_and_is_never_re_executed_blindly() {
    let world = Arc::new(World::builder().clock(ManualClock::new()).build());
    world.tool("send_email").set_status_query(false);
    let arguments = r#"{"to":"a@example.com","subject":"Hi","body":"x"}"#;
    let key = crash_mid_refund(&world, "send_email", arguments).await;

    let early = world.execute(call("send_email", arguments).business_request("crash_1")).await;
    assert_code(&early, "operation_in_progress");

    tokio::time::advance(Duration::from_secs(8)).await;
    let late = world.execute(call("send_email", arguments).business_request("crash_1")).await;
    assert_code(&late, "timeout_unknown");
    assert_eq!(details(&late)["reason"], "unreconcilable");
    assert_eq!(world.record(&key).await.state, State::Unknown, "never back to ABSENT");
    assert_eq!(world.tool("send_email").invocations().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn an_expired_lease_is_reconciled_through_the_status_query_first() {
    let world = Arc::new(World::builder().clock(ManualClock::new()).build());
    let arguments = r#"{"order_id":"ord_123","amount":100,"reason":"duplicate"}"#;
    let key = crash_mid_refund(&world, "refund_order", arguments).await;
    let result = json!({"refund_id": "rf_9", "order_id": "ord_123", "amount": 100, "status": "pending"});
    world.tool("refund_order").script_status([Ok(Status::Completed(result.clone()))]);

    tokio::time::advance(Duration::from_secs(8)).await;
    let late = world.execute(call("refund_order", arguments).business_request("crash_1")).await;
    assert!(late.ok && late.meta.reconciled, "{:#}", late.to_json());
    assert_eq!(late.result, Some(result));
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
    assert_eq!(world.record(&key).await.state, State::Succeeded);
}

#[tokio::test(start_paused = true)]
async fn a_completion_after_its_lease_was_taken_over_is_fenced_off() {
    let clock = ManualClock::new();
    let world = Arc::new(World::builder().clock(clock.clone()).build());
    let tool = world.tool("send_email");
    tool.set_status_query(false);
    let gate = Gate::new();
    tool.script([Step::Gate(gate.clone(), Box::new(Step::Send(Box::new(Step::Default))))]);
    let request = || call("send_email", r#"{"to":"a@example.com","subject":"Hi","body":"x"}"#).business_request("m_1");
    let first = tokio::spawn({
        let world = Arc::clone(&world);
        let request = request();
        async move { world.execute(request).await }
    });
    gate.entered(1).await;

    // Another process sees the lease as expired (its wall clock is ahead): the record becomes UNKNOWN.
    clock.jump_wall(Duration::from_secs(60));
    let second = world.execute(request().call_id("call_2")).await;
    assert_code(&second, "timeout_unknown");

    gate.open();
    let first = first.await.expect("the first attempt finishes");
    assert!(first.ok, "the first attempt's answer is still the truth about that attempt");
    assert_eq!(world.record_of(&first).await.state, State::Unknown, "its stale epoch could not settle the record");
    let audit = world.audit_records();
    let fenced = audit.iter().find(|record| record.call_id == "call_1").expect("audit of the first attempt");
    assert_eq!(fenced.notes, vec![AuditNote::CompletionFenced]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_concurrent_executions_of_one_business_request_invoke_the_tool_once() {
    let world = Arc::new(World::new());
    world.tool("refund_order").script([Step::Sleep(Duration::from_millis(30), Box::new(Step::Default))]);
    let tasks: Vec<_> = (0..64)
        .map(|index| {
            let world = Arc::clone(&world);
            tokio::spawn(async move { world.execute(biz(100, &format!("call_{index}"))).await })
        })
        .collect();
    let mut fresh = 0;
    for task in tasks {
        let envelope = task.await.expect("no panic");
        match code(&envelope) {
            "ok" if !envelope.meta.replayed => fresh += 1,
            "ok" | "operation_in_progress" => {}
            other => panic!("unexpected {other}: {:#}", envelope.to_json()),
        }
    }
    assert_eq!(fresh, 1, "exactly one execution answers first-hand");
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
}

/// A store where another replica settles an UNKNOWN record just before this executor's own compare-and-set
/// lands, so this executor loses the race.
struct AnotherReplicaWinsReconciliation {
    inner: Arc<dyn Store>,
    winner: Envelope,
}

#[async_trait::async_trait]
impl Forward for AnotherReplicaWinsReconciliation {
    fn inner(&self) -> &dyn Store {
        &*self.inner
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        if expected.state == State::Unknown && update.state == State::Succeeded {
            let record = self.inner.load(key).await?.expect("the record exists");
            let theirs = Update::settle(&record, State::FailedFinal, Some(self.winner.to_json()), update.now_ms);
            assert!(self.inner.compare_and_set(key, expected, theirs).await?);
        }
        self.inner.compare_and_set(key, expected, update).await
    }
}

#[tokio::test]
async fn a_reconciliation_that_loses_the_race_answers_what_the_winner_recorded() {
    let winner = Envelope::failure(
        callproof_executor::ErrorBody::new(callproof_executor::ErrorCode::BusinessRejected, "closed elsewhere")
            .with("reason", "order_closed"),
        callproof_executor::Meta {
            request_id: "req_other".into(),
            call_id: "call_other".into(),
            attempt: 2,
            idempotency_key: None,
            replayed: false,
            reconciled: true,
        },
    );
    let store = Arc::new(AnotherReplicaWinsReconciliation { inner: Arc::new(MemoryStore::new()), winner });
    let world = World::builder().store(store).build();
    after_a_lost_refund(&world).await;
    let result = json!({"refund_id": "rf_downstream", "order_id": "ord_123", "amount": 100, "status": "completed"});
    world.tool("refund_order").script_status([Ok(Status::Completed(result))]);

    let retry = world.execute(biz(100, "call_2")).await;
    assert_code(&retry, "business_rejected");
    assert!(retry.meta.replayed, "the winner's stored answer is replayed: {:#}", retry.to_json());
    assert_eq!(details(&retry)["reason"], "order_closed");
}
