//! The executor over every store: a duplicate refund is refunded once, whichever store holds the record,
//! and a durable store keeps that promise across an executor restart and between two executors.

mod store_support;
mod support;

use callproof_executor::idempotency::State;
use callproof_executor::tool::{Failure, Status};
use callproof_executor::{Envelope, Request};
use serde_json::json;
use std::sync::Arc;
use store_support::{Backend, Env};
use support::{Gate, RequestExt, Step, World, assert_code, refund};

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
    two_executors_sharing_the_store_refund_once
);
every_store!(
    postgres,
    crate::Backend::Postgres,
    a_restarted_executor_replays_from_the_durable_store,
    two_executors_sharing_the_store_refund_once
);
every_store!(
    redis,
    crate::Backend::Redis,
    a_restarted_executor_replays_from_the_durable_store,
    two_executors_sharing_the_store_refund_once
);
