//! `tenant-isolation`: no call reads or changes a resource of another tenant, or of another owner without the
//! support role.
//!
//! Rule enforced here: judged on committed effects (from the ledger) and on successful `get_order` results
//! (against the scenario's fixtures); the support role is the conformance app's (the reference executor's
//! default configuration), which may act on other owners' resources in its own tenant only. An effect tied to its
//! operation but to none of the calls in flight is foreign only if it is foreign to every one of them.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::CallRecord;
use callproof_executor::Config;
use serde_json::Value;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const TENANT_ISOLATION: CheckId = CheckId::new("tenant-isolation");

pub(super) const CHECK: Check = Check {
    id: TENANT_ISOLATION,
    level: Level::Must,
    rule: "no call reads or changes a resource of another tenant, or of another owner without the support role",
    seed_ref: "§3.1, §3.2, §10 case 2",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for exchange in &context.transcript.exchanges {
        let Some(effect) = exchange.committed() else { continue };
        let effect = &context.transcript.ledger[effect];
        let senders = context.transcript.senders(exchange);
        let Some(first) = senders.first() else { continue };
        judgement.judged();
        if senders.iter().all(|call| foreign(call, &effect.tenant_id, &effect.owner_id)) {
            let message = format!(
                "{} {} of tenant {} / owner {} was changed for {} / {}",
                effect.kind.name(),
                effect.target,
                effect.tenant_id,
                effect.owner_id,
                first.tenant_id,
                first.subject_id
            );
            let evidence =
                if exchange.call.is_some() { context.evidence(first) } else { context.shared_evidence(exchange) };
            judgement.fail(message, evidence);
        }
    }
    for call in context.transcript.calls.iter().filter(|call| call.tool == "get_order" && call.ok()) {
        judgement.judged();
        let order_id = read_order_id(call);
        if let Some(order) = context.scenario.fixtures.orders.iter().find(|order| Some(order.order_id.as_str()) == order_id)
            && foreign(call, &order.tenant_id, &order.owner_id)
        {
            judgement.fail(
                format!("order {} of tenant {} was read for tenant {}", order.order_id, order.tenant_id, call.tenant_id),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

/// Whether a resource of `tenant` and `owner` is out of `call`'s reach: another tenant's, or another owner's
/// without the support role.
fn foreign(call: &CallRecord, tenant: &str, owner: &str) -> bool {
    let support = Config::default().support_role.is_some_and(|role| call.roles.contains(&role));
    tenant != call.tenant_id || (owner != call.subject_id && !support)
}

/// The order a successful `get_order` returned (a field of the tool's result, not of the envelope).
fn read_order_id(call: &CallRecord) -> Option<&str> {
    call.envelope()?.result()?.get("order_id").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    const ORDERS: &str = r#"
        description = "d"
        [[fixtures.orders]]
        order_id = "ord_1"
        tenant_id = "t_acme"
        owner_id = "u_alice"
        refundable_amount = 100
        [[step]]
        action = "wait"
        ms = 0
        [[step]]
        action = "wait"
        ms = 0
    "#;

    #[test]
    fn own_resources_and_a_support_agents_refund_in_the_same_tenant_pass() {
        history(
            "submit refund_order -> ok; request POST /refunds -> committed
             submit refund_order as=sue -> ok; request POST /refunds -> committed owner=u_alice",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_refund_of_another_owners_order_fails() {
        history("submit refund_order as=bob -> ok; request POST /refunds -> committed owner=u_alice")
            .fails(&CHECK, "of tenant t_acme / owner u_alice was changed for t_acme / u_bob");
    }

    #[test]
    fn reading_another_tenants_order_fails_even_for_support() {
        history(r#"submit get_order as=mallory -> ok result={"order_id":"ord_1"}"#)
            .with_scenario(ORDERS)
            .fails(&CHECK, "order ord_1 of tenant t_acme was read for tenant t_evil");
        history(r#"submit get_order as=sue -> ok result={"order_id":"ord_1"}"#).with_scenario(ORDERS).passes(&CHECK);
    }

    #[test]
    fn an_effect_no_id_ties_to_a_call_is_foreign_only_if_foreign_to_every_call_in_flight() {
        history(
            "burst refund_order as=bob -> ok; and as=sue -> operation_in_progress
             request POST /refunds -> committed owner=u_alice op",
        )
        .passes(&CHECK);
        history(
            "burst refund_order as=bob -> ok; and as=bob -> operation_in_progress
             request POST /refunds -> committed owner=u_alice op",
        )
        .fails(&CHECK, "of tenant t_acme / owner u_alice was changed for t_acme / u_bob");
    }

    #[test]
    fn refusals_that_touch_nothing_skip() {
        history("submit refund_order as=mallory -> forbidden; request GET /orders/ord_1 -> 200").skips(&CHECK);
    }
}
