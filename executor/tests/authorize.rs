//! Stage 2 through `Executor::execute`: identity, tool, scope, ownership, approval, and the business rules
//! that run after them. Every refusal here must leave the tools untouched.

mod support;

use callproof_executor::{Config, Risk};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use support::{
    ALICE, BOB, OTHER_TENANT, RequestExt, TENANT, World, alice, approval_for, assert_code, call, caller, details,
    refund, wall_now_ms,
};

#[tokio::test]
async fn the_owner_of_an_order_gets_a_refund_with_an_idempotency_key() {
    let world = World::new();
    let envelope = world.execute(refund("ord_123", 100)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
    let result = envelope.result.as_ref().expect("a result");
    assert_eq!(result["order_id"], "ord_123");
    assert_eq!(result["amount"], 100);
    assert!(!envelope.meta.replayed);
    assert_eq!(envelope.meta.call_id, "call_1");
    let key = envelope.meta.idempotency_key.clone().expect("a side-effecting tool gets a key");
    let invocations = world.tool("refund_order").invocations();
    assert_eq!(invocations.len(), 1);
    assert_eq!(invocations[0].key.as_deref(), Some(key.as_str()), "the tool receives the same key");
    assert_eq!(invocations[0].subject_id, ALICE);
}

#[tokio::test]
async fn a_read_tool_runs_without_an_idempotency_key() {
    let world = World::new();
    let envelope = world.execute(call("get_weather", r#"{"location":"Lisbon","units":null}"#)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
    assert_eq!(envelope.meta.idempotency_key, None);
    assert_eq!(world.tool("get_weather").invocations()[0].key, None);
}

#[tokio::test]
async fn an_invalid_identity_is_unauthorized() {
    let world = World::new();
    let mut auth = alice();
    auth.identity.valid = false;
    let envelope = world.execute(refund("ord_123", 100).by(auth)).await;
    assert_code(&envelope, "unauthorized");
    assert_eq!(details(&envelope)["reason"], "identity_invalid");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn an_expired_identity_is_unauthorized() {
    let world = World::new();
    let mut auth = alice();
    auth.identity.expires_at_ms = Some(wall_now_ms() - 1_000);
    let envelope = world.execute(refund("ord_123", 100).by(auth)).await;
    assert_code(&envelope, "unauthorized");
    assert_eq!(details(&envelope)["reason"], "identity_expired");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn an_identity_that_expires_later_is_accepted() {
    let world = World::new();
    let mut auth = alice();
    auth.identity.expires_at_ms = Some(wall_now_ms() + 600_000);
    let envelope = world.execute(refund("ord_123", 100).by(auth)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
}

#[tokio::test]
async fn an_invalid_identity_is_unauthorized_even_for_a_tool_it_may_not_use() {
    let world = World::new();
    let mut auth = alice();
    auth.identity.valid = false;
    auth.allowed_tools = Some(BTreeSet::from(["get_weather".to_owned()]));
    assert_code(&world.execute(refund("ord_123", 100).by(auth)).await, "unauthorized");
}

#[tokio::test]
async fn a_tool_outside_the_allowed_list_is_forbidden() {
    let world = World::new();
    let mut auth = alice();
    auth.allowed_tools = Some(BTreeSet::from(["get_order".to_owned(), "get_weather".to_owned()]));
    let envelope = world.execute(refund("ord_123", 100).by(auth.clone())).await;
    assert_code(&envelope, "forbidden");
    assert_eq!(details(&envelope)["reason"], "tool_not_allowed");
    assert_eq!(world.tool_calls(), 0);
    let allowed = world.execute(call("get_order", r#"{"order_id":"ord_123"}"#).by(auth)).await;
    assert!(allowed.ok, "{:#}", allowed.to_json());
}

#[tokio::test]
async fn a_missing_scope_is_forbidden_and_named() {
    let world = World::new();
    let auth = callproof_executor::AuthContext::new(ALICE, TENANT, &["orders:read"]);
    let envelope = world.execute(refund("ord_123", 100).by(auth)).await;
    assert_code(&envelope, "forbidden");
    assert_eq!(details(&envelope)["reason"], "missing_scope");
    assert_eq!(details(&envelope)["required_scopes"], json!(["refunds:write"]));
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn another_owners_order_is_forbidden() {
    let world = World::new();
    let envelope = world.execute(refund("ord_bob", 100)).await;
    assert_code(&envelope, "forbidden");
    assert_eq!(details(&envelope)["reason"], "resource_not_accessible");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn another_tenants_order_is_forbidden() {
    let world = World::new();
    assert_code(&world.execute(refund("ord_globex", 100)).await, "forbidden");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn an_order_of_a_namesake_in_another_tenant_is_forbidden() {
    let world = World::new();
    // ord_twin belongs to a subject also called u_alice, but in the other tenant.
    assert_code(&world.execute(refund("ord_twin", 100)).await, "forbidden");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn foreign_and_nonexistent_orders_get_byte_identical_errors() {
    let world = World::new();
    let mut bodies = Vec::new();
    for order in ["ord_bob", "ord_globex", "ord_twin", "ord_doesnotexist"] {
        let envelope = world.execute(refund(order, 100)).await;
        assert_code(&envelope, "forbidden");
        bodies.push(serde_json::to_string(&envelope.error).expect("json"));
    }
    assert_eq!(bodies[0], bodies[1], "foreign owner vs foreign tenant");
    assert_eq!(bodies[0], bodies[2], "foreign owner vs namesake in another tenant");
    assert_eq!(bodies[0], bodies[3], "foreign vs nonexistent");
    assert!(!bodies[0].contains("ord_"), "the error must not name the order: {}", bodies[0]);
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn a_read_of_a_foreign_order_is_forbidden_like_a_missing_one() {
    let world = World::new();
    let foreign = world.execute(call("get_order", r#"{"order_id":"ord_bob"}"#)).await;
    let missing = world.execute(call("get_order", r#"{"order_id":"ord_nope"}"#)).await;
    assert_code(&foreign, "forbidden");
    assert_eq!(foreign.error, missing.error);
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn a_business_rule_never_speaks_about_a_foreign_order() {
    let world = World::new();
    // 999999 exceeds every order's refundable amount; for a foreign order the caller must learn nothing.
    for order in ["ord_bob", "ord_globex"] {
        assert_code(&world.execute(refund(order, 999_999)).await, "forbidden");
    }
}

#[tokio::test]
async fn a_support_admin_may_refund_another_owners_order_in_the_same_tenant() {
    let world = World::new();
    let mut admin = caller("u_support", TENANT);
    admin.roles.insert("support_admin".to_owned());
    let envelope = world.execute(refund("ord_bob", 100).by(admin)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
    assert_eq!(world.tool("refund_order").invocations()[0].subject_id, "u_support");
}

#[tokio::test]
async fn a_support_admin_may_not_touch_another_tenants_order() {
    let world = World::new();
    let mut admin = caller("u_support", TENANT);
    admin.roles.insert("support_admin".to_owned());
    assert_code(&world.execute(refund("ord_globex", 100).by(admin)).await, "forbidden");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn the_support_role_is_only_honoured_when_configured() {
    let world = World::builder().config(Config { support_role: None, ..Config::default() }).build();
    let mut admin = caller("u_support", TENANT);
    admin.roles.insert("support_admin".to_owned());
    assert_code(&world.execute(refund("ord_bob", 100).by(admin)).await, "forbidden");
}

#[tokio::test]
async fn another_role_does_not_act_as_support() {
    let world = World::new();
    let mut auth = caller("u_support", TENANT);
    auth.roles.insert("admin".to_owned());
    assert_code(&world.execute(refund("ord_bob", 100).by(auth)).await, "forbidden");
}

#[tokio::test]
async fn a_caller_of_the_other_tenant_may_act_on_its_own_order() {
    let world = World::new();
    let carol = caller(support::CAROL, OTHER_TENANT);
    let envelope = world.execute(refund("ord_globex", 100).by(carol)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
}

// ---- business rules ---------------------------------------------------------------------------------------

#[tokio::test]
async fn an_amount_above_the_refundable_amount_is_rejected_before_the_tool_runs() {
    let world = World::new();
    let envelope = world.execute(refund("ord_456", 301).business_request("biz_over")).await;
    assert_code(&envelope, "business_rejected");
    assert_eq!(details(&envelope)["reason"], "amount_exceeds_refundable");
    assert_eq!(details(&envelope)["field"], "amount");
    assert_eq!(world.tool_calls(), 0);
    let record = world.record_of(&envelope).await;
    assert_eq!(record.state, callproof_executor::idempotency::State::FailedFinal);

    let again = world.execute(refund("ord_456", 301).business_request("biz_over").call_id("call_2")).await;
    assert_code(&again, "business_rejected");
    assert!(again.meta.replayed, "a settled rejection is replayed");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn an_amount_equal_to_the_refundable_amount_is_accepted() {
    let world = World::new();
    let envelope = world.execute(refund("ord_456", 300)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
}

#[tokio::test]
async fn a_null_amount_refunds_the_whole_refundable_amount() {
    let world = World::new();
    let envelope =
        world.execute(call("refund_order", r#"{"order_id":"ord_123","amount":null,"reason":"duplicate"}"#)).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
}

// ---- approvals --------------------------------------------------------------------------------------------

fn delete_args(account: &str) -> Value {
    json!({"account_id": account})
}

fn delete(account: &str, approval: Option<callproof_executor::Approval>) -> callproof_executor::Request {
    let mut auth = alice();
    auth.approval = approval;
    call("delete_account", &delete_args(account).to_string()).by(auth)
}

#[tokio::test]
async fn a_matching_approval_lets_a_destructive_call_through() {
    let world = World::new();
    let approval = approval_for("delete_account", &delete_args("acct_alice"), wall_now_ms());
    let envelope = world.execute(delete("acct_alice", Some(approval))).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
    assert_eq!(world.tool("delete_account").invocations().len(), 1);
}

#[tokio::test]
async fn a_destructive_call_without_approval_asks_the_user() {
    let world = World::new();
    let envelope = world.execute(delete("acct_alice", None)).await;
    assert_code(&envelope, "approval_required");
    let error = envelope.error.as_ref().expect("error");
    assert_eq!(error.resolution(), callproof_executor::error::Resolution::AskUser);
    assert_eq!(error.details()["reason"], "approval_missing");
    assert_eq!(error.details()["tool"], "delete_account");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn an_expired_approval_is_refused() {
    let world = World::new();
    let mut approval = approval_for("delete_account", &delete_args("acct_alice"), wall_now_ms());
    approval.expires_at_ms = wall_now_ms() - 1;
    let envelope = world.execute(delete("acct_alice", Some(approval))).await;
    assert_code(&envelope, "approval_required");
    assert_eq!(details(&envelope)["reason"], "approval_expired");
    assert_eq!(details(&envelope)["approval_id"], "apr_1");
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn an_approval_that_differs_in_any_bound_field_is_refused() {
    type Change = fn(&mut callproof_executor::Approval);
    let changes: [(&str, Change); 5] = [
        ("subject_id", |approval| approval.subject_id = BOB.to_owned()),
        ("tenant_id", |approval| approval.tenant_id = OTHER_TENANT.to_owned()),
        ("tool", |approval| approval.tool = "refund_order".to_owned()),
        ("arguments_hash", |approval| {
            approval.arguments_hash = support::arguments_hash(&delete_args("acct_bob"));
        }),
        ("risk", |approval| approval.risk = Risk::Write),
    ];
    let world = World::new();
    for (field, change) in changes {
        let mut approval = approval_for("delete_account", &delete_args("acct_alice"), wall_now_ms());
        change(&mut approval);
        let envelope = world.execute(delete("acct_alice", Some(approval))).await;
        assert_code(&envelope, "approval_required");
        assert_eq!(details(&envelope)["reason"], "approval_mismatch", "{field}");
        assert_eq!(details(&envelope)["mismatch"], field);
    }
    assert_eq!(world.tool_calls(), 0);
}

#[tokio::test]
async fn an_approval_binds_the_canonical_arguments_not_their_spelling() {
    let world = World::new();
    let approval = approval_for("delete_account", &delete_args("acct_alice"), wall_now_ms());
    let mut auth = alice();
    auth.approval = Some(approval);
    let spaced = call("delete_account", "{ \"account_id\" :\n \"acct_alice\" }").by(auth);
    assert!(world.execute(spaced).await.ok);
}

#[tokio::test]
async fn an_approval_for_my_account_does_not_open_someone_elses() {
    let world = World::new();
    let approval = approval_for("delete_account", &delete_args("acct_bob"), wall_now_ms());
    // The approval matches the arguments, but the account is bob's: ownership still refuses.
    assert_code(&world.execute(delete("acct_bob", Some(approval))).await, "forbidden");
    assert_eq!(world.tool_calls(), 0);
}
