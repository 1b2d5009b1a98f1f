//! Answers outside the contract: a downstream redirect is an answer, never an instruction (the HTTP client follows
//! no redirect, and a request that was sent and answered 3xx is never reported as not sent); a body over the size
//! limit is dropped, and only a success, whose body is its result, becomes unknown for it.
//!
//! Each test runs the conformance app over real HTTP against wiremock on loopback. Before the fix (reqwest's
//! default policy follows up to ten redirects) a refund answered `302` to an unreachable address was reported
//! `dependency_unavailable` (`not_sent`, retryable) and the retry refunded again; a redirect to another host
//! carried the caller's identity, key and body there and recorded that host's answer as the refund.

mod support;

use callproof_executor::app::{HttpDownstream, conformance_app};
use callproof_executor::idempotency::State;
use callproof_executor::{Envelope, Executor, Request, ToolCall};
use serde_json::{Value, json};
use std::sync::Arc;
use support::{ALICE, TENANT, alice, refund};
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// An address nothing listens on: following a redirect there fails to connect.
const UNREACHABLE: &str = "http://127.0.0.1:1/refunds/rf_1";

/// The reference executor over HTTP against `server`, with alice's order `ord_123` on it.
async fn executor_against(server: &MockServer) -> Executor {
    Mock::given(method("GET"))
        .and(path("/orders/ord_123"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "order_id": "ord_123", "tenant_id": TENANT, "owner_id": ALICE, "refundable_amount": 5000
        })))
        .mount(server)
        .await;
    let downstream = HttpDownstream::new(&server.uri()).expect("an HTTP client");
    let (tools, resources) = conformance_app(Arc::new(downstream)).expect("the conformance app");
    Executor::builder(tools).resources(resources).build().expect("an executor")
}

/// A refund of business request `br_redirect`, attempt `attempt`.
fn refund_attempt(attempt: u32) -> Request {
    let mut request = refund("ord_123", 100);
    request.business_request_id = Some("br_redirect".to_owned());
    request.attempt = attempt;
    request.call.call_id = format!("call_{attempt}");
    request
}

fn refund_body(refund_id: &str) -> Value {
    json!({"refund_id": refund_id, "order_id": "ord_123", "amount": 100, "status": "completed"})
}

fn redirect(status: u16, location: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).insert_header("location", location)
}

async fn requests_to(server: &MockServer, verb: &str, route: &str) -> usize {
    let requests = server.received_requests().await.expect("wiremock records requests");
    requests.iter().filter(|request| request.method.as_str() == verb && request.url.path() == route).count()
}

/// The answer of a sent refund that was redirected: unknown, to be reconciled, never "not sent".
fn assert_unknown_not_unsent(envelope: &Envelope, status: u16) {
    let json = envelope.to_json();
    let error = envelope.error.as_ref().unwrap_or_else(|| panic!("a redirected refund is not a success: {json:#}"));
    assert_ne!(error.details().get("reason"), Some(&json!("not_sent")), "{json:#}");
    assert!(!error.retryable(), "{json:#}");
    assert_eq!(error.code().as_str(), "timeout_unknown", "{json:#}");
    assert_eq!(error.details()["reason"], "unexpected_answer", "{json:#}");
    assert_eq!(error.details()["downstream_status"], status, "{json:#}");
}

#[tokio::test]
async fn a_refund_redirected_to_an_unreachable_address_is_unknown_and_the_retry_reconciles_instead_of_refunding_again()
{
    let server = MockServer::start().await;
    let executor = executor_against(&server).await;
    Mock::given(method("POST")).and(path("/refunds")).respond_with(redirect(302, UNREACHABLE)).mount(&server).await;
    Mock::given(method("GET"))
        .and(path("/refunds"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"status": "completed", "result": refund_body("rf_1")})),
        )
        .mount(&server)
        .await;

    let first = executor.execute(refund_attempt(1)).await;
    assert_unknown_not_unsent(&first, 302);
    let key = first.meta.idempotency_key.clone().expect("a key");
    let record = executor.store().load(&key).await.expect("the store answers").expect("a record");
    assert_eq!(record.state, State::Unknown);

    let retry = executor.execute(refund_attempt(2)).await;
    assert!(retry.ok, "{:#}", retry.to_json());
    assert!(retry.meta.reconciled, "the retry asked the downstream first");
    assert_eq!(retry.result.as_ref().expect("a result")["refund_id"], "rf_1");
    assert_eq!(requests_to(&server, "POST", "/refunds").await, 1, "the refund was sent once");
    assert_eq!(requests_to(&server, "GET", "/refunds").await, 1, "one status query reconciled it");
}

#[tokio::test]
async fn a_redirect_to_another_host_sends_that_host_nothing_and_its_answer_is_never_the_result() {
    for status in [302, 307] {
        let server = MockServer::start().await;
        let elsewhere = MockServer::start().await;
        Mock::given(any())
            .respond_with(ResponseTemplate::new(201).set_body_json(refund_body("rf_elsewhere")))
            .mount(&elsewhere)
            .await;
        let executor = executor_against(&server).await;
        let location = format!("{}/refunds", elsewhere.uri());
        Mock::given(method("POST"))
            .and(path("/refunds"))
            .respond_with(redirect(status, &location))
            .mount(&server)
            .await;

        let envelope = executor.execute(refund_attempt(1)).await;
        let received = elsewhere.received_requests().await.expect("wiremock records requests");
        assert!(
            received.is_empty(),
            "{status}: the other host got {} request(s), the first with headers {:?}",
            received.len(),
            received.first().map(|request| &request.headers)
        );
        assert_unknown_not_unsent(&envelope, status);
        let key = envelope.meta.idempotency_key.clone().expect("a key");
        let record = executor.store().load(&key).await.expect("the store answers").expect("a record");
        let recorded = serde_json::to_string(&record).expect("json");
        assert!(!recorded.contains("rf_elsewhere"), "{status}: recorded {recorded}");
        assert!(!envelope.to_json().to_string().contains("rf_elsewhere"));
    }
}

#[tokio::test]
async fn a_redirect_to_a_get_on_the_same_host_is_not_followed_and_its_body_is_never_the_refund() {
    let server = MockServer::start().await;
    let executor = executor_against(&server).await;
    Mock::given(method("GET"))
        .and(path("/orders/ord_123/receipt"))
        .respond_with(ResponseTemplate::new(200).set_body_json(refund_body("rf_receipt")))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/refunds"))
        .respond_with(redirect(302, "/orders/ord_123/receipt"))
        .mount(&server)
        .await;

    let envelope = executor.execute(refund_attempt(1)).await;
    assert_eq!(requests_to(&server, "GET", "/orders/ord_123/receipt").await, 0, "the redirect was followed");
    assert!(!envelope.to_json().to_string().contains("rf_receipt"), "{:#}", envelope.to_json());
    assert_unknown_not_unsent(&envelope, 302);
}

#[tokio::test]
async fn a_redirected_read_is_a_retryable_dependency_failure_and_is_not_followed() {
    let server = MockServer::start().await;
    let elsewhere = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "location": "Oslo", "temperature": 3.5, "units": "celsius", "summary": "from elsewhere"
        })))
        .mount(&elsewhere)
        .await;
    let executor = executor_against(&server).await;
    let location = format!("{}/weather", elsewhere.uri());
    Mock::given(method("GET")).and(path("/weather")).respond_with(redirect(302, &location)).mount(&server).await;

    let call = ToolCall::value("call_1", "get_weather", json!({"location": "Oslo", "units": "celsius"}));
    let envelope = executor.execute(Request::new(call, alice())).await;
    assert_eq!(elsewhere.received_requests().await.expect("wiremock records requests").len(), 0);
    let error = envelope.error.as_ref().unwrap_or_else(|| panic!("not a success: {:#}", envelope.to_json()));
    assert_eq!(error.code().as_str(), "dependency_unavailable");
    assert!(error.retryable());
    assert_eq!(error.details()["reason"], "unexpected_answer");
}

/// Status over size (issue 12 item 7): a refusal or an outage whose body is over the limit is still a definite
/// answer from its status line; only a success, whose body is the result, becomes unknown when it is unreadable.
#[tokio::test]
async fn an_oversized_body_drops_the_body_but_keeps_a_definite_status() {
    let oversized = "x".repeat(callproof_executor::app::MAX_RESPONSE_BYTES + 1);
    let server = MockServer::start().await;
    let executor = executor_against(&server).await;
    Mock::given(method("POST"))
        .and(path("/refunds"))
        .respond_with(ResponseTemplate::new(503).set_body_string(oversized.clone()))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    let unavailable = executor.execute(refund_attempt(1)).await;
    let json = unavailable.to_json();
    let error = unavailable.error.as_ref().unwrap_or_else(|| panic!("a 503 is not a success: {json:#}"));
    assert_eq!(error.code().as_str(), "dependency_unavailable", "{json:#}");
    assert_eq!(error.details()["downstream_status"], 503, "{json:#}");
    assert!(error.retryable(), "{json:#}");

    Mock::given(method("POST"))
        .and(path("/refunds"))
        .respond_with(ResponseTemplate::new(201).set_body_string(oversized))
        .mount(&server)
        .await;
    let unreadable = executor.execute(refund_attempt(2)).await;
    let json = unreadable.to_json();
    let error = unreadable.error.as_ref().unwrap_or_else(|| panic!("an unreadable success is not ok: {json:#}"));
    assert_eq!(error.code().as_str(), "timeout_unknown", "a success whose body cannot be read: {json:#}");
}
