//! The executor over every store: a duplicate refund is refunded once, whichever store holds the record,
//! and a durable store keeps that promise across an executor restart, between two executors, and across a
//! crash between the claim and the send (repeated `CALLPROOF_SOAK` rounds when it is set).

mod soak;
mod store_support;
mod support;

use callproof_executor::idempotency::State;
use callproof_executor::tool::{Failure, Status};
use callproof_executor::{Envelope, Request};
use serde_json::json;
use soak::Soak;
use std::os::unix::process::ExitStatusExt;
use std::sync::Arc;
use std::time::Duration;
use store_support::{Backend, CHILD_NAME, Env, child_runtime, child_target, spawn_child};
use support::{Gate, ManualClock, RequestExt, Step, World, assert_code, refund};

fn biz(amount: u64, call_id: &str) -> Request {
    refund("ord_123", amount).business_request("biz_1").call_id(call_id)
}

fn world_over(env: &Env) -> World {
    World::builder().store(env.store()).build()
}

async fn a_duplicate_refund_replays_the_stored_success(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let world = world_over(&env);
    let first = world.execute(biz(100, "call_1")).await;
    assert!(first.ok, "{:#}", first.to_json());
    let duplicate = world.execute(biz(100, "call_2").attempt(2)).await;
    assert!(duplicate.ok && duplicate.meta.replayed, "{:#}", duplicate.to_json());
    assert_eq!(duplicate.result, first.result, "the stored result");
    assert_eq!(world.tool("refund_order").invocations().len(), 1, "one refund");

    let key = first.meta.idempotency_key.as_deref().expect("a key");
    let record = env.store().load(key).await.expect("load").expect("the record is in the store");
    assert_eq!((record.state, record.epoch, record.attempts), (State::Succeeded, 1, 1));
    let stored: Envelope = serde_json::from_value(record.outcome.expect("a stored answer")).expect("an envelope");
    assert_eq!(stored.result, first.result);
}

async fn changed_arguments_conflict_without_a_second_refund(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let world = world_over(&env);
    let first = world.execute(biz(100, "call_1")).await;
    let before = world.record_of(&first).await;
    let conflict = world.execute(biz(200, "call_2")).await;
    assert_code(&conflict, "idempotency_conflict");
    assert_eq!(world.tool("refund_order").invocations().len(), 1);
    assert_eq!(world.record_of(&first).await, before, "the conflict leaves the record alone");
}

async fn a_retryable_failure_is_retried_under_the_next_epoch(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let world = world_over(&env);
    world.tool("refund_order").script([Step::fail(Failure::NotSent), Step::Default]);
    let failed = world.execute(biz(100, "call_1")).await;
    assert_code(&failed, "dependency_unavailable");
    assert_eq!(world.record_of(&failed).await.state, State::FailedRetryable);
    let retry = world.execute(biz(100, "call_2").attempt(2)).await;
    assert!(retry.ok && !retry.meta.replayed, "{:#}", retry.to_json());
    let record = world.record_of(&retry).await;
    assert_eq!((record.state, record.epoch, record.attempts), (State::Succeeded, 2, 2));
    let invocations = world.tool("refund_order").invocations();
    assert_eq!(invocations.len(), 2);
    assert_eq!(invocations[0].key, invocations[1].key, "one Idempotency-Key downstream");
}

async fn a_lost_refund_is_reconciled_not_repeated(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let world = world_over(&env);
    world.tool("refund_order").script([Step::fail(Failure::Lost)]);
    let lost = world.execute(biz(100, "call_1")).await;
    assert_code(&lost, "timeout_unknown");
    assert_eq!(world.record_of(&lost).await.state, State::Unknown);

    let result = json!({"refund_id": "rf_downstream", "order_id": "ord_123", "amount": 100, "status": "completed"});
    world.tool("refund_order").script_status([Ok(Status::Completed(result.clone()))]);
    let retry = world.execute(biz(100, "call_2")).await;
    assert!(retry.ok && retry.meta.reconciled, "{:#}", retry.to_json());
    assert_eq!(retry.result, Some(result));
    assert_eq!(world.tool("refund_order").invocations().len(), 1, "reconciled, not re-sent");
    assert_eq!(world.record_of(&retry).await.state, State::Succeeded);
}

async fn a_restarted_executor_replays_from_the_durable_store(backend: Backend) {
    let Some(mut env) = Env::open(backend).await else { return };
    let first = {
        let world = world_over(&env);
        let first = world.execute(biz(100, "call_1")).await;
        assert!(first.ok, "{:#}", first.to_json());
        first
    };
    env.reopen(false).await;
    let restarted = world_over(&env);
    let retry = restarted.execute(biz(100, "call_2")).await;
    assert!(retry.ok && retry.meta.replayed, "{:#}", retry.to_json());
    assert_eq!(retry.result, first.result);
    assert_eq!(restarted.tool("refund_order").invocations().len(), 0, "no second refund after the restart");
}

async fn two_executors_sharing_the_store_refund_once(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let one = Arc::new(world_over(&env));
    let two = World::builder().store(env.another().await.store()).build();
    let gate = Gate::new();
    one.tool("refund_order").script([Step::Gate(gate.clone(), Box::new(Step::Default))]);
    let running = tokio::spawn({
        let one = Arc::clone(&one);
        async move { one.execute(biz(100, "call_1")).await }
    });
    gate.entered(1).await;

    // The second executor, through its own client, finds the first one's claim.
    let duplicate = two.execute(biz(100, "call_2")).await;
    assert_code(&duplicate, "operation_in_progress");
    gate.open();
    let first = running.await.expect("the first executor finishes");
    assert!(first.ok, "{:#}", first.to_json());
    let after = two.execute(biz(100, "call_3")).await;
    assert!(after.ok && after.meta.replayed, "{:#}", after.to_json());
    assert_eq!(after.result, first.result);
    let refunds = one.tool("refund_order").invocations().len() + two.tool("refund_order").invocations().len();
    assert_eq!(refunds, 1);
}

/// The variable that turns this test binary into the executor that is killed between claim and send.
const KILLED_LOCATOR: &str = "CALLPROOF_STORE_KILLED_LOCATOR";
/// Printed by that child once its store is open.
const KILLED_READY: &str = "EXECUTOR READY";

/// Each round: a child process runs an executor over the store and SIGKILLs itself when the refund tool is
/// invoked, after the claim and before anything is sent. A restarted executor (another instance, its wall
/// clock past the dead claim's lease and deadline) finds the record IN_PROGRESS at epoch 1, asks the
/// downstream (which has no trace), and sends the refund once, under the same key and epoch 2.
async fn a_refund_killed_between_claim_and_send_is_sent_once_after_the_restart(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let mut soak =
        Soak::start("a_refund_killed_between_claim_and_send_is_sent_once_after_the_restart", &format!("{backend:?}"));
    for round in 0..soak::rounds(1) {
        let business = format!("biz_{round}");
        let (mut child, _lines) = spawn_child(
            &env,
            "a_child_executor_killed_between_claim_and_send",
            KILLED_LOCATOR,
            &business,
            KILLED_READY,
        )
        .await;
        let status = child.wait().await.expect("the child ends");
        assert_eq!(status.signal(), Some(9), "round {round}: the child killed itself: {status:?}");

        let clock = ManualClock::new();
        clock.jump_wall(Duration::from_secs(3600));
        let restarted = World::builder().store(env.another().await.store()).clock(clock).build();
        restarted.tool("refund_order").script_status([Ok(Status::NotFound)]);
        let retry =
            restarted.execute(refund("ord_123", 100).business_request(&business).call_id("call_2").attempt(2)).await;
        assert!(retry.ok && !retry.meta.replayed, "round {round}: {:#}", retry.to_json());
        let invocations = restarted.tool("refund_order").invocations();
        assert_eq!(invocations.len(), 1, "round {round}: one refund, sent after the restart");
        assert_eq!(restarted.tool("refund_order").status_queries().len(), 1, "round {round}: asked first");
        let record = restarted.record_of(&retry).await;
        assert_eq!((record.state, record.epoch, record.attempts), (State::Succeeded, 2, 2), "round {round}");
        assert_eq!(invocations[0].key.as_deref(), Some(&*record.key), "round {round}: the same key downstream");
        soak.passed();
    }
}

/// Not a test of its own: the child of `a_refund_killed_between_claim_and_send_is_sent_once_after_the_restart`.
/// Without its environment variable it does nothing.
#[test]
fn a_child_executor_killed_between_claim_and_send() {
    let Some(target) = child_target(KILLED_LOCATOR) else { return };
    let business = std::env::var(CHILD_NAME).expect("a business request id");
    child_runtime().block_on(async {
        let store = target.open(false).await.expect("the child opens the store").store();
        println!("{KILLED_READY}");
        let world = World::builder().store(store).clock(ManualClock::new()).build();
        world.tool("refund_order").script([Step::KillProcess]);
        let answer = world.execute(refund("ord_123", 100).business_request(&business).call_id("call_1")).await;
        panic!("the child was not killed: {:#}", answer.to_json());
    });
}

macro_rules! suite {
    ($module:ident, $backend:expr, [$($test:ident),* $(,)?]) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    super::$test($backend).await;
                }
            )*
        }
    };
}

macro_rules! every_store {
    ($module:ident, $backend:expr $(, $durable:ident)*) => {
        suite!($module, $backend, [
            a_duplicate_refund_replays_the_stored_success,
            changed_arguments_conflict_without_a_second_refund,
            a_retryable_failure_is_retried_under_the_next_epoch,
            a_lost_refund_is_reconciled_not_repeated,
            $($durable,)*
        ]);
    };
}

every_store!(memory, crate::Backend::Memory);
every_store!(
    sqlite,
    crate::Backend::Sqlite,
    a_restarted_executor_replays_from_the_durable_store,
    two_executors_sharing_the_store_refund_once,
    a_refund_killed_between_claim_and_send_is_sent_once_after_the_restart
);
every_store!(
    postgres,
    crate::Backend::Postgres,
    a_restarted_executor_replays_from_the_durable_store,
    two_executors_sharing_the_store_refund_once,
    a_refund_killed_between_claim_and_send_is_sent_once_after_the_restart
);
every_store!(
    redis,
    crate::Backend::Redis,
    a_restarted_executor_replays_from_the_durable_store,
    two_executors_sharing_the_store_refund_once,
    a_refund_killed_between_claim_and_send_is_sent_once_after_the_restart
);
