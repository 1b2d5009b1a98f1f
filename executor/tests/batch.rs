//! `execute_batch`: the parallel calls of one model turn. Answers come back in call order; writes on one
//! resource run one after another; everything else overlaps. Ordering is proved from the tools' own event log
//! and gates, never from wall-clock timings.

mod support;

use callproof_executor::Request;
use std::time::Duration;
use support::{Gate, RequestExt, Step, World, call, code, refund};

fn get_order(order: &str) -> Request {
    call("get_order", &format!(r#"{{"order_id":"{order}"}}"#))
}

/// Runs `requests` as one batch while `gate` waits for `count` tools to be inside at once, then opens it.
/// Fails (instead of hanging) when fewer than `count` calls can be in flight together.
async fn batch_with_overlap(world: &World, requests: Vec<Request>, gate: &Gate, count: u32) -> Vec<String> {
    let overlap = async { tokio::time::timeout(Duration::from_secs(5), gate.entered(count)).await.is_ok() };
    let (envelopes, overlapped) = tokio::join!(world.batch(requests), async {
        let overlapped = overlap.await;
        gate.open();
        overlapped
    });
    assert!(overlapped, "fewer than {count} calls ran at the same time: {:#?}", world.events.lines());
    envelopes.iter().map(|envelope| code(envelope).to_owned()).collect()
}

#[tokio::test(start_paused = true)]
async fn answers_come_back_in_call_order() {
    let world = World::new();
    world.tool("get_weather").script([Step::Sleep(Duration::from_secs(2), Box::new(Step::Default))]);
    let requests = vec![
        call("get_weather", r#"{"location":"Oslo","units":null}"#).call_id("c0"),
        call("refund_order", "{oops").call_id("c1"),
        refund("ord_123", 100).call_id("c2"),
        call("nope", "{}").call_id("c3"),
        refund("ord_bob", 100).call_id("c4"),
    ];
    let envelopes = world.batch(requests).await;
    let order: Vec<(&str, &str)> =
        envelopes.iter().map(|envelope| (envelope.meta.call_id.as_str(), code(envelope))).collect();
    assert_eq!(
        order,
        [("c0", "ok"), ("c1", "invalid_json"), ("c2", "ok"), ("c3", "tool_not_found"), ("c4", "forbidden")]
    );
}

#[tokio::test(start_paused = true)]
async fn two_writes_on_one_order_run_one_after_the_other() {
    let world = World::new();
    let slow = Step::Sleep(Duration::from_secs(3), Box::new(Step::Default));
    world.tool("refund_order").script([slow.clone(), slow]);
    let requests = vec![refund("ord_123", 100).request_id("w1"), refund("ord_123", 200).request_id("w2")];
    let envelopes = world.batch(requests).await;
    assert!(envelopes.iter().all(|envelope| envelope.ok));
    let events = &world.events;
    assert!(
        events.position("end refund_order w1") < events.position("start refund_order w2"),
        "the second write started before the first ended: {:#?}",
        events.lines()
    );
}

#[tokio::test(start_paused = true)]
async fn a_read_after_a_write_on_the_same_order_waits_for_it() {
    let world = World::new();
    world.tool("refund_order").script([Step::Sleep(Duration::from_secs(3), Box::new(Step::Default))]);
    let requests = vec![refund("ord_123", 100).request_id("w1"), get_order("ord_123").request_id("r1")];
    world.batch(requests).await;
    let events = &world.events;
    assert!(events.position("end refund_order w1") < events.position("start get_order r1"), "{:#?}", events.lines());
}

#[tokio::test(start_paused = true)]
async fn reads_of_one_order_run_concurrently() {
    let world = World::new();
    let gate = Gate::new();
    let gated = Step::Gate(gate.clone(), Box::new(Step::Default));
    world.tool("get_order").script([gated.clone(), gated.clone(), gated]);
    let requests = vec![get_order("ord_123"), get_order("ord_123"), get_order("ord_123")];
    let codes = batch_with_overlap(&world, requests, &gate, 3).await;
    assert_eq!(codes, ["ok", "ok", "ok"]);
}

#[tokio::test(start_paused = true)]
async fn writes_on_different_orders_run_concurrently() {
    let world = World::new();
    let gate = Gate::new();
    let gated = Step::Gate(gate.clone(), Box::new(Step::Default));
    world.tool("refund_order").script([gated.clone(), gated]);
    let requests = vec![refund("ord_123", 100), refund("ord_456", 100)];
    let codes = batch_with_overlap(&world, requests, &gate, 2).await;
    assert_eq!(codes, ["ok", "ok"]);
}

#[tokio::test(start_paused = true)]
async fn a_write_waits_for_earlier_reads_of_its_order_but_not_for_other_orders() {
    let world = World::new();
    let slow = |step: Step| Step::Sleep(Duration::from_secs(2), Box::new(step));
    world.tool("get_order").script([slow(Step::Default)]);
    world.tool("refund_order").script([Step::Default, slow(Step::Default)]);
    let requests = vec![
        get_order("ord_123").request_id("r1"),
        refund("ord_123", 100).request_id("w1"),
        refund("ord_456", 100).request_id("w2"),
    ];
    world.batch(requests).await;
    let events = &world.events;
    assert!(events.position("end get_order r1") < events.position("start refund_order w1"), "{:#?}", events.lines());
    assert!(events.position("start refund_order w2") < events.position("end get_order r1"), "{:#?}", events.lines());
}

#[tokio::test]
async fn a_batch_gives_every_call_its_own_audit_record() {
    let world = World::new();
    let envelopes = world.batch(vec![refund("ord_123", 1), call("x", "{}"), get_order("ord_123")]).await;
    assert_eq!(envelopes.len(), 3);
    assert_eq!(world.audit_records().len(), 3);
}
