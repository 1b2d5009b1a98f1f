//! End-to-end benches: `Executor::execute` for the refund payload, the whole pipeline.
//!
//! - `noop_tool`: a financial no-op tool in process (decode, authorize, claim in the in-memory store, call,
//!   validate output, record, envelope); each call is a new business operation, so none is a replay.
//! - `replay`: the same business operation again, answered from the store.
//! - `wiremock`: the conformance app's `refund_order` over HTTP against a wiremock server on loopback (GET
//!   /orders/{id} for the ownership check, then POST /refunds), one call in flight.

use callproof_benches::{caller, case, noop_tools};
use callproof_executor::app::{HttpDownstream, conformance_app};
use callproof_executor::{Executor, Request, ToolCall};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime")
}

fn refund_requests(prefix: &str, count: u64) -> Vec<Request> {
    let arguments = case("refund_valid").arguments;
    (0..count)
        .map(|index| {
            Request::new(ToolCall::raw(format!("call_{index}"), "refund_order", arguments.clone()), caller())
                .business_request(format!("{prefix}_{index}"))
        })
        .collect()
}

/// Runs fresh business operations through a fresh executor; only the `execute` calls are timed.
fn time_fresh_calls(runtime: &tokio::runtime::Runtime, executor: impl Fn() -> Executor, iters: u64) -> Duration {
    let executor = executor();
    let requests = refund_requests("op", iters);
    runtime.block_on(async {
        let start = Instant::now();
        for request in requests {
            let envelope = executor.execute(request).await;
            assert!(envelope.ok, "{:?}", envelope.error);
        }
        start.elapsed()
    })
}

fn noop(c: &mut Criterion) {
    let runtime = runtime();
    let mut group = c.benchmark_group("execute");
    group.bench_function("noop_tool", |b| {
        b.iter_custom(|iters| {
            time_fresh_calls(&runtime, || Executor::builder(noop_tools()).build().expect("executor"), iters)
        })
    });

    let executor = Executor::builder(noop_tools()).build().expect("executor");
    let request = refund_requests("replayed", 1).remove(0);
    let first = runtime.block_on(executor.execute(request.clone()));
    assert!(first.ok, "{:?}", first.error);
    group.bench_function("replay", |b| {
        b.iter(|| {
            let envelope = runtime.block_on(executor.execute(request.clone()));
            assert!(envelope.meta.replayed);
            envelope
        })
    });
    group.finish();
}

fn wiremock(c: &mut Criterion) {
    let runtime = runtime();
    let server = runtime.block_on(async {
        // Not pooled, and recording nothing: the server goes away with this bench and its memory stays flat.
        let server = MockServer::builder().disable_request_recording().start().await;
        Mock::given(method("GET"))
            .and(path("/orders/ord_123"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "order_id": "ord_123", "tenant_id": "t_1", "owner_id": "u_1", "status": "paid",
                "refundable_amount": 1000, "note": ""
            })))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/refunds"))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                json!({"refund_id": "rf_1", "order_id": "ord_123", "amount": 100, "status": "completed"}),
            ))
            .mount(&server)
            .await;
        server
    });
    let downstream = Arc::new(HttpDownstream::new(&server.uri()).expect("http client"));
    let app = || {
        let (tools, resources) = conformance_app(downstream.clone()).expect("conformance app");
        Executor::builder(tools).resources(resources).build().expect("executor")
    };
    let mut group = c.benchmark_group("execute");
    group.sample_size(30);
    group.bench_function("wiremock", |b| b.iter_custom(|iters| time_fresh_calls(&runtime, app, iters)));
    group.finish();
    runtime.block_on(async {
        // wiremock's trap: yield before dropping a server inside a runtime.
        tokio::task::yield_now().await;
        drop(server);
    });
}

criterion_group!(benches, noop, wiremock);
criterion_main!(benches);
