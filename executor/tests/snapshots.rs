//! insta snapshots under the top-level snapshots/executor/: one real envelope per error code, produced through
//! `Executor::execute`, and the whole code table. A change to any code's shape, flags or wording shows up in
//! review. Ids are redacted; tokio's clock is paused so times are stable. CI runs with `INSTA_UPDATE=no`.

mod support;

use callproof_executor::error::ErrorCode;
use callproof_executor::tool::Failure;
use callproof_executor::{Config, Envelope, Request};
use serde_json::json;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use support::{FailingStore, Gate, ManualClock, RequestExt, Step, World, alice, call, refund};

const SNAPSHOTS: &str = "../../snapshots/executor";

macro_rules! snapshot_settings {
    ($($body:tt)*) => {
        insta::with_settings!({
            snapshot_path => SNAPSHOTS,
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, { $($body)* })
    };
}

fn world() -> World {
    World::builder().clock(ManualClock::new()).build()
}

fn fixed(request: Request) -> Request {
    request.request_id("req_snapshot")
}

/// Produces `code` through a real execution, with a one-line account of how.
async fn produce(code: ErrorCode) -> (Envelope, &'static str) {
    let world = world();
    match code {
        ErrorCode::InvalidJson => (
            world.execute(fixed(call("refund_order", r#"{"order_id":"ord_123","amount":True,"reason":"x"}"#))).await,
            "a Python literal in the raw arguments",
        ),
        ErrorCode::InvalidArguments => (
            world
                .execute(fixed(call("refund_order", r#"{"order_id":"ord_123","amount":1,"amount":2,"reason":"x"}"#)))
                .await,
            "a repeated key",
        ),
        ErrorCode::SchemaViolation => (
            world.execute(fixed(call("refund_order", r#"{"order_id":"ord_123","amount":"100","reason":"x"}"#))).await,
            "a string for an integer field",
        ),
        ErrorCode::ToolNotFound => {
            (world.execute(fixed(call("Refund_Order", "{}"))).await, "a tool name in the wrong case")
        }
        ErrorCode::Unauthorized => {
            let mut auth = alice();
            auth.identity.valid = false;
            (
                world.execute(fixed(refund("ord_123", 100).by(auth))).await,
                "an identity the authentication layer refused",
            )
        }
        ErrorCode::Forbidden => {
            (world.execute(fixed(refund("ord_bob", 100))).await, "a refund of another owner's order")
        }
        ErrorCode::ApprovalRequired => (
            world.execute(fixed(call("delete_account", r#"{"account_id":"acct_alice"}"#))).await,
            "a destructive call without an approval",
        ),
        ErrorCode::BusinessRejected => {
            (world.execute(fixed(refund("ord_456", 301))).await, "an amount above the order's refundable amount")
        }
        ErrorCode::IdempotencyConflict => {
            world.execute(refund("ord_123", 100).business_request("biz_1")).await;
            (
                world.execute(fixed(refund("ord_123", 200).business_request("biz_1").call_id("call_2"))).await,
                "one business request id with different arguments",
            )
        }
        ErrorCode::OperationInProgress => {
            let world = Arc::new(world);
            let gate = Gate::new();
            world.tool("refund_order").script([Step::Gate(gate.clone(), Box::new(Step::Default))]);
            let first = tokio::spawn({
                let world = Arc::clone(&world);
                async move { world.execute(refund("ord_123", 100).business_request("biz_1")).await }
            });
            gate.entered(1).await;
            let envelope =
                world.execute(fixed(refund("ord_123", 100).business_request("biz_1").call_id("call_2"))).await;
            gate.open();
            first.await.expect("the first attempt finishes");
            (envelope, "a duplicate while the first attempt still runs")
        }
        ErrorCode::DependencyUnavailable => {
            world.tool("refund_order").script([Step::poisoned(Failure::Unavailable, Some(503))]);
            (world.execute(fixed(refund("ord_123", 100))).await, "a downstream answering 503")
        }
        ErrorCode::RateLimited => {
            let limited = Failure::RateLimited { retry_after: Some(Duration::from_millis(2_500)) };
            world.tool("refund_order").script([Step::poisoned(limited, Some(429))]);
            (world.execute(fixed(refund("ord_123", 100))).await, "a downstream answering 429 with Retry-After")
        }
        ErrorCode::TimeoutNotStarted => {
            world.tool("refund_order").script([Step::HangBeforeSend]);
            (
                world.execute(fixed(refund("ord_123", 100).budget(Duration::from_secs(3)))).await,
                "a tool still connecting when the deadline passed",
            )
        }
        ErrorCode::TimeoutUnknown => {
            world.tool("refund_order").script([Step::HangAfterSend]);
            (
                world.execute(fixed(refund("ord_123", 100).budget(Duration::from_secs(3)))).await,
                "a tool that sent its request and never answered",
            )
        }
        ErrorCode::OutputInvalid => {
            world.tool("refund_order").script([Step::Answer(json!({"refund_id": 7, "status": "done"}))]);
            (world.execute(fixed(refund("ord_123", 100))).await, "a result that breaks the output schema")
        }
        ErrorCode::InternalError => {
            let world = World::builder().clock(ManualClock::new()).store(Arc::new(FailingStore)).build();
            (world.execute(fixed(refund("ord_123", 100))).await, "an idempotency store that cannot be reached")
        }
        ErrorCode::RetryBudgetExhausted => {
            let world = World::builder()
                .clock(ManualClock::new())
                .config(Config { max_attempts: 1, ..Config::default() })
                .build();
            world.tool("refund_order").script([Step::fail(Failure::NotSent)]);
            world.execute(refund("ord_123", 100).business_request("biz_1")).await;
            (
                world.execute(fixed(refund("ord_123", 100).business_request("biz_1").call_id("call_2"))).await,
                "a retry after the only allowed attempt failed",
            )
        }
    }
}

#[tokio::test(start_paused = true)]
async fn every_error_code_has_a_snapshot_of_a_real_envelope() {
    for code in ErrorCode::ALL {
        let (envelope, how) = produce(code).await;
        assert_eq!(envelope.code(), Some(code), "{how}: {:#}", envelope.to_json());
        snapshot_settings! {
            insta::with_settings!({ description => how }, {
                insta::assert_json_snapshot!(format!("envelope_{code}"), envelope.to_json(), {
                    ".meta.request_id" => "[request_id]",
                    ".meta.idempotency_key" => "[idempotency_key]",
                });
            });
        }
    }
}

#[test]
fn the_code_table_has_a_snapshot() {
    snapshot_settings! {
        insta::assert_json_snapshot!("code_table", ErrorCode::table());
    }
}

#[test]
fn the_snapshot_folder_covers_every_code_and_nothing_else() {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join(SNAPSHOTS);
    let found: BTreeSet<String> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| entry.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".snap"))
        .collect();
    let mut expected: BTreeSet<String> =
        ErrorCode::ALL.iter().map(|code| format!("envelope_{}.snap", code.as_str())).collect();
    expected.insert("code_table.snap".to_owned());
    assert_eq!(found, expected, "snapshots/executor/ must hold exactly one envelope per code plus the table");
}
