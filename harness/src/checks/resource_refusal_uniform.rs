//! `resource-refusal-uniform`: a resource that does not exist and one of another tenant get the same refusal,
//! byte for byte apart from the resource's own id.
//!
//! Rule enforced here: judged on calls of tools bound to a resource the scenario's fixtures describe (orders,
//! accounts) whose id argument names no fixture or another tenant's. Two such calls are compared when they come
//! from the same caller to the same tool with the same arguments apart from that id, so nothing but the
//! resource can explain a difference: their `error` members must be identical once the resource id and the
//! call's own ids (its call id, business request id and the string ids of its `meta`) are blanked out, and with
//! them per-answer noise (a time, a trace id: `checks::noise`). Only
//! definite refusals are compared (authorization and business categories); a lookup that failed, a deadline or
//! an idempotency answer is about something else.

use super::{Check, CheckId, Context, Judgement, Level, Outcome, error_without_ids, table_category};
use crate::transcript::CallRecord;
use callproof_executor::error::Category;
use serde_json::Value;
use std::collections::BTreeMap;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const RESOURCE_REFUSAL_UNIFORM: CheckId = CheckId::new("resource-refusal-uniform");

pub(super) const CHECK: Check = Check {
    id: RESOURCE_REFUSAL_UNIFORM,
    level: Level::Must,
    rule: "a missing resource and another tenant's get the same refusal, byte for byte apart from ids",
    seed_ref: "§3.2, §10 case 2",
    run,
};

/// A call about an inaccessible resource: the id it names and the rest of its arguments, canonical.
struct Probe {
    resource_id: String,
    rest: String,
}

/// The call as a probe, when its tool is bound to a fixture kind and the id names nothing of the caller's tenant.
fn probe(context: &Context<'_>, call: &CallRecord) -> Option<Probe> {
    let binding = context.tool(&call.tool)?.resource.as_ref()?;
    let Value::Object(mut arguments) = call.arguments_json()? else { return None };
    let resource_id = arguments.remove(&binding.argument)?.as_str()?.to_owned();
    let fixtures = &context.scenario.fixtures;
    let tenant = match binding.kind.as_str() {
        "order" => fixtures.orders.iter().find(|order| order.order_id == resource_id).map(|order| &order.tenant_id),
        "account" => {
            fixtures.accounts.iter().find(|account| account.account_id == resource_id).map(|account| &account.tenant_id)
        }
        _ => return None,
    };
    if tenant.is_some_and(|tenant| *tenant == call.tenant_id) {
        return None;
    }
    // serde_json's maps are ordered, so the rest of the arguments has one text whatever order it came in.
    let rest = Value::Object(arguments).to_string();
    Some(Probe { resource_id, rest })
}

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    // Per (tool, caller, the other arguments): the first definite refusal and the call that gave it.
    let mut first: BTreeMap<(&str, &str, String), (&CallRecord, Value)> = BTreeMap::new();
    for call in &context.transcript.calls {
        // An approval is bound to its arguments: a call carrying one may be refused for it, not for the resource.
        let Some(probe) = probe(context, call).filter(|_| call.approval.is_none()) else { continue };
        let Some(envelope) = call.envelope() else { continue };
        let definite = envelope
            .code()
            .is_some_and(|code| matches!(table_category(code), Category::Authorization | Category::Business));
        let Some(error) = error_without_ids(call, &probe.resource_id, context.scenario).filter(|_| definite) else { continue };
        let group = (call.tool.as_str(), call.auth.as_str(), probe.rest);
        match first.get(&group) {
            None => {
                first.insert(group, (call, error));
            }
            Some((earlier, refusal)) => {
                judgement.judged();
                if *refusal != error {
                    let mut evidence = context.evidence(earlier);
                    evidence.extend(context.evidence(call));
                    judgement.fail(
                        format!(
                            "calls {} and {} refused inaccessible resources differently (ids blanked): {refusal} vs {error}",
                            earlier.call_id, call.call_id
                        ),
                        evidence,
                    );
                }
            }
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    /// Exploration's world: ord_123 is alice's (t_acme), ord_999 is t_globex's, and ord_000 does not exist.
    fn orders() -> String {
        format!("description = \"d\"\n{}\n[[step]]\naction = \"wait\"\nms = 0\n[[step]]\naction = \"wait\"\nms = 0\n", crate::explore::WORLD)
    }

    const FOREIGN: &str = r#"args={"order_id":"ord_999","amount":10,"reason":"r"}"#;
    const MISSING: &str = r#"args={"order_id":"ord_000","amount":10,"reason":"r"}"#;

    fn pair(foreign: &str, missing: &str) -> String {
        format!("submit refund_order {FOREIGN} -> {foreign}; submit refund_order {MISSING} -> {missing}")
    }

    #[test]
    fn the_same_refusal_for_a_foreign_and_a_missing_order_passes() {
        let refusal = "forbidden reason=resource_not_accessible";
        history(&pair(refusal, refusal)).with_scenario(&orders()).passes(&CHECK);
    }

    #[test]
    fn refusals_that_differ_only_in_the_resource_id_pass() {
        history(&pair(
            r#"forbidden message="order_ord_999_is_not_accessible""#,
            r#"forbidden message="order_ord_000_is_not_accessible""#,
        ))
        .with_scenario(&orders())
        .passes(&CHECK);
    }

    #[test]
    fn refusals_that_quote_the_calls_own_request_id_pass() {
        history(&pair(
            r#"forbidden message="refused,_see_request_r_1111" rid=r_1111"#,
            r#"forbidden message="refused,_see_request_r_2222" rid=r_2222"#,
        ))
        .with_scenario(&orders())
        .passes(&CHECK);
    }

    #[test]
    fn refusals_stamped_with_the_time_or_a_fresh_trace_id_pass() {
        history(&pair(
            r#"forbidden message="refused_at_2026-12-04T02:41:07.123Z" trace_id=4bf92f3577b34da6a3ce929d0e0e4736"#,
            r#"forbidden message="refused_at_2026-12-04T02:41:08.004Z" trace_id=0af7651916cd43dd8448eb211c80319c"#,
        ))
        .with_scenario(&orders())
        .passes(&CHECK);
    }

    #[test]
    fn refusals_that_say_how_long_they_took_pass() {
        // Blind round 14's variant_message_elapsed_ms: every message ends with how long the call took.
        history(&pair(
            r#"forbidden message="not_accessible,after:3ms" elapsed_ms=3"#,
            r#"forbidden message="not_accessible,after:2ms" elapsed_ms=2"#,
        ))
        .with_scenario(&orders())
        .passes(&CHECK);
        history(&pair(r#"forbidden message="lookup_answered_200""#, r#"forbidden message="lookup_answered_404""#))
            .with_scenario(&orders())
            .fails(&CHECK, "refused inaccessible resources differently");
    }

    #[test]
    fn a_foreign_owners_id_is_not_taken_for_a_trace_id() {
        // The foreign order's owner has an id that looks like any opaque token; a refusal that names it in place
        // of the trace id a missing order gets leaks whose order it is.
        let world = orders().replace(r#"owner_id = "u_mallory""#, r#"owner_id = "usr-9f2c41d7e0""#);
        history(&pair("forbidden trace_id=usr-9f2c41d7e0", "forbidden trace_id=0af7651916cd43dd"))
            .with_scenario(&world)
            .fails(&CHECK, "refused inaccessible resources differently");
        history(&pair("forbidden trace_id=4bf92f3577b34da6", "forbidden trace_id=0af7651916cd43dd"))
            .with_scenario(&world)
            .passes(&CHECK);
    }

    #[test]
    fn a_message_that_tells_a_missing_order_apart_fails() {
        history(&pair(
            "forbidden reason=resource_not_accessible",
            r#"forbidden reason=resource_not_accessible message="order_ord_000_was_not_found""#,
        ))
        .with_scenario(&orders())
        .fails(&CHECK, "refused inaccessible resources differently");
    }

    #[test]
    fn another_code_for_a_missing_order_fails() {
        history(&pair("forbidden reason=resource_not_accessible", "business_rejected reason=order_not_found"))
            .with_scenario(&orders())
            .fails(&CHECK, "refused inaccessible resources differently");
    }

    #[test]
    fn calls_that_differ_in_more_than_the_id_or_in_the_caller_are_not_compared() {
        let other_amount = r#"args={"order_id":"ord_000","amount":20,"reason":"r"}"#;
        history(&format!(
            "submit refund_order {FOREIGN} -> forbidden; submit refund_order {other_amount} -> business_rejected"
        ))
        .with_scenario(&orders())
        .skips(&CHECK);
        history(&format!("submit refund_order {FOREIGN} -> forbidden; submit refund_order as=bob {MISSING} -> business_rejected"))
            .with_scenario(&orders())
            .skips(&CHECK);
    }

    #[test]
    fn transient_refusals_and_own_orders_are_not_compared() {
        history(&pair("forbidden", "dependency_unavailable reason=resource_lookup_failed"))
            .with_scenario(&orders())
            .skips(&CHECK);
        let own = r#"args={"order_id":"ord_123","amount":10,"reason":"r"}"#;
        history(&format!("submit refund_order {FOREIGN} -> forbidden; submit refund_order {own} -> business_rejected"))
            .with_scenario(&orders())
            .skips(&CHECK);
    }
}
