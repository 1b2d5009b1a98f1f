//! The audit port through `Executor::execute`: exactly one record per call, whatever happened, with the facts
//! needed to rebuild it and none of the arguments unless configured (and then redacted).

mod support;

use callproof_executor::audit::{AuditNote, AuditOutcome, Decision, REDACTED, StoreStep};
use callproof_executor::tool::Failure;
use callproof_executor::{Config, Request};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use support::{
    ManualClock, RequestExt, Step, TENANT, World, alice, approval_for, arguments_hash, call, refund, wall_now_ms,
};

const SECRET_REASON: &str = "customer said CANARY-reason-3141";

fn secret_refund() -> Request {
    let arguments = json!({"order_id": "ord_123", "amount": 100, "reason": SECRET_REASON});
    call("refund_order", &arguments.to_string())
}

#[tokio::test]
async fn every_call_leaves_exactly_one_record_whatever_its_outcome() {
    let world = Arc::new(World::new());
    world.tool("refund_order").script([Step::Default, Step::fail(Failure::NotSent)]);
    let requests = vec![
        call("refund_order", "{not json"),
        call("no_such_tool", "{}"),
        call("refund_order", "{}"),
        refund("ord_bob", 100),
        refund("ord_123", 100).business_request("b1"),
        refund("ord_123", 100).business_request("b1").call_id("call_replay"),
        refund("ord_123", 200).business_request("b1").call_id("call_conflict"),
        refund("ord_123", 300),
        refund("ord_123", 999_999),
        call("get_weather", r#"{"location":"Oslo","units":null}"#),
    ];
    let count = requests.len();
    let mut codes = Vec::new();
    for request in requests {
        codes.push(support::code(&world.execute(request).await).to_owned());
    }
    let records = world.audit_records();
    assert_eq!(records.len(), count, "one record per call: {codes:?}");
    let recorded: Vec<String> = records.iter().map(|record| record.error_code.clone().unwrap_or("ok".into())).collect();
    assert_eq!(recorded, codes);
    let ids: std::collections::BTreeSet<&str> = records.iter().map(|record| record.request_id.as_str()).collect();
    assert_eq!(ids.len(), count, "request ids are unique");
}

#[tokio::test]
async fn a_successful_call_is_recorded_with_every_field() {
    let clock = ManualClock::new();
    let world = World::builder().clock(clock.clone()).build();
    let mut request = refund("ord_123", 100).business_request("biz_a").attempt(3).budget(Duration::from_secs(7));
    request.trace_id = Some("trace_9".to_owned());
    world.tool("refund_order").script([Step::AnswerWithId("dsr_7".to_owned())]);
    let envelope = world.execute(request).await;
    assert!(envelope.ok);

    let records = world.audit_records();
    let [record] = records.as_slice() else { panic!("one record, got {records:#?}") };
    assert_eq!(record.request_id, envelope.meta.request_id);
    assert_eq!(record.trace_id.as_deref(), Some("trace_9"));
    assert_eq!(record.call_id, "call_1");
    assert_eq!(record.tool, "refund_order");
    assert_eq!(record.tool_version.as_deref(), Some("1.0.0"));
    let schema_version = record.schema_version.as_deref().expect("schema version");
    assert_eq!(schema_version.len(), 12);
    assert!(schema_version.bytes().all(|byte| byte.is_ascii_hexdigit()));
    assert_eq!(record.tenant_id, TENANT);
    assert_eq!(record.subject_id, support::ALICE);
    assert_eq!(record.idempotency_key, envelope.meta.idempotency_key);
    assert_eq!(record.authorization, Decision::Allow);
    assert_eq!(record.approval_id, None);
    assert_eq!(record.attempt, 3);
    assert_eq!(record.deadline_ms, record.started_ms + 7_000);
    assert!(record.finished_ms >= record.started_ms);
    assert_eq!(record.outcome, AuditOutcome::Ok);
    assert_eq!(record.error_code, None);
    assert_eq!(record.downstream_request_id.as_deref(), Some("dsr_7"));
    let expected = arguments_hash(&json!({"order_id": "ord_123", "amount": 100, "reason": "duplicate"}));
    assert_eq!(record.arguments_hash.as_deref(), Some(expected.as_str()));
    assert_eq!(record.arguments, None);
}

#[tokio::test]
async fn a_refused_call_records_the_deny_decision_and_its_code() {
    let world = World::new();
    world.execute(refund("ord_bob", 100)).await;
    let record = &world.audit_records()[0];
    assert_eq!(record.authorization, Decision::Deny);
    assert_eq!(record.error_code.as_deref(), Some("forbidden"));
    assert_eq!(record.outcome, AuditOutcome::Error);
    assert!(record.arguments_hash.is_some(), "the arguments decoded");
    assert_eq!(record.idempotency_key, None, "refused before the claim");
}

#[tokio::test]
async fn a_call_whose_access_could_not_be_checked_is_not_recorded_as_a_denial() {
    let world = World::new();
    let envelope = world.execute(refund("ord_123", 100).budget(Duration::ZERO)).await;
    support::assert_code(&envelope, "timeout_not_started");
    let record = &world.audit_records()[0];
    assert_eq!(record.authorization, Decision::NotEvaluated, "no decision was made, so none is recorded");
    assert_eq!(record.error_code.as_deref(), Some("timeout_not_started"));
}

#[tokio::test]
async fn a_call_that_fails_to_decode_is_recorded_without_authorization_or_hash() {
    let world = World::new();
    world.execute(call("refund_order", r#"{"order_id":"ord_123","amount":True}"#)).await;
    let record = &world.audit_records()[0];
    assert_eq!(record.authorization, Decision::NotEvaluated);
    assert_eq!(record.error_code.as_deref(), Some("invalid_json"));
    assert_eq!(record.arguments_hash, None);
    assert_eq!(record.tool_version, None);
}

#[tokio::test]
async fn an_unknown_tool_name_is_recorded_truncated() {
    let world = World::new();
    world.execute(call(&"x".repeat(10_000), "{}")).await;
    assert_eq!(world.audit_records()[0].tool.chars().count(), 64);
}

#[tokio::test]
async fn the_approval_presented_is_recorded() {
    let world = World::new();
    let mut auth = alice();
    auth.approval = Some(approval_for("delete_account", &json!({"account_id": "acct_alice"}), wall_now_ms()));
    let envelope = world.execute(call("delete_account", r#"{"account_id":"acct_alice"}"#).by(auth)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
    assert_eq!(world.audit_records()[0].approval_id.as_deref(), Some("apr_1"));
}

#[tokio::test]
async fn a_replay_is_recorded_as_replayed() {
    let world = World::new();
    world.execute(refund("ord_123", 100).business_request("b")).await;
    world.execute(refund("ord_123", 100).business_request("b").call_id("call_2")).await;
    let outcomes: Vec<AuditOutcome> = world.audit_records().into_iter().map(|record| record.outcome).collect();
    assert_eq!(outcomes, [AuditOutcome::Ok, AuditOutcome::Replayed]);
}

#[tokio::test]
async fn raw_arguments_stay_out_of_the_audit_trail_by_default() {
    let world = World::new();
    world.execute(secret_refund()).await;
    world
        .execute(secret_refund().by({
            let mut auth = alice();
            auth.identity.valid = false;
            auth
        }))
        .await;
    for record in world.audit_records() {
        assert_eq!(record.arguments, None);
        let text = serde_json::to_string(&record).expect("json");
        assert!(!text.contains("CANARY-reason"), "{text}");
    }
}

#[tokio::test]
async fn configured_argument_auditing_redacts_sensitive_and_listed_fields() {
    let config = Config { audit_arguments: true, audit_redact: vec!["/to".to_owned()], ..Config::default() };
    let world = World::builder()
        .config(config)
        .spec("send_email", |spec| spec.input_schema["properties"]["body"]["x-sensitive"] = json!(true))
        .build();
    let envelope = world
        .execute(call("send_email", r#"{"to":"bob@example.com","subject":"Quarterly","body":"pin is 4321"}"#))
        .await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
    let record = &world.audit_records()[0];
    assert_eq!(record.arguments, Some(json!({"to": REDACTED, "subject": "Quarterly", "body": REDACTED})));
    let text = serde_json::to_string(record).expect("json");
    assert!(!text.contains("4321") && !text.contains("bob@example.com"), "{text}");
}

#[tokio::test]
async fn a_sensitive_value_is_never_echoed_in_a_schema_violation() {
    let world = World::builder()
        .spec("send_email", |spec| spec.input_schema["properties"]["to"]["x-sensitive"] = json!(true))
        .build();
    let envelope =
        world.execute(call("send_email", r#"{"to":"CANARY-not-an-address","subject":"Hi","body":"x"}"#)).await;
    support::assert_code(&envelope, "schema_violation");
    assert_eq!(support::details(&envelope)["path"], "/to");
    let text = envelope.to_json().to_string();
    assert!(!text.contains("CANARY-not-an-address"), "{text}");
}

#[tokio::test]
async fn a_tool_panic_is_noted_for_operators_without_its_message() {
    let world = World::new();
    world.tool("refund_order").script([Step::Panic { after_send: true }]);
    world.execute(refund("ord_123", 100)).await;
    let record = &world.audit_records()[0];
    assert_eq!(record.notes, vec![AuditNote::ToolPanicked { sent: true }]);
    assert_eq!(record.outcome, AuditOutcome::Error);
}

#[tokio::test]
async fn a_store_failure_keeps_its_cause_in_the_audit_record_and_out_of_the_envelope() {
    let world = World::builder().store(Arc::new(support::FailingStore)).build();
    let envelope = world.execute(refund("ord_123", 100)).await;
    support::assert_code(&envelope, "internal_error");
    let record = &world.audit_records()[0];
    let [AuditNote::StoreFailed { step: StoreStep::Claim, cause }] = &record.notes[..] else {
        panic!("one store note, got {:?}", record.notes);
    };
    assert!(cause.contains("db-primary-03"), "the backend's words are for operators: {cause}");
    assert!(!envelope.to_json().to_string().contains("db-primary"));
}
