//! `rejection-has-no-effect`: refused input reaches no downstream; a refused authorization reaches nothing but
//! the lookup of the named resource.
//!
//! Rule enforced here: the layer of a refusal is the code table's category of its code; only a refusal about
//! the resource itself (`details.reason = resource_not_accessible`, or no reason) may have read it first.

use super::{Check, CheckId, Context, Judgement, Level, Outcome, table_category};
use crate::transcript::CallRecord;
use callproof_executor::error::Category;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const REJECTION_HAS_NO_EFFECT: CheckId = CheckId::new("rejection-has-no-effect");

pub(super) const CHECK: Check = Check {
    id: REJECTION_HAS_NO_EFFECT,
    level: Level::Must,
    rule: "refused input reaches no downstream; a refused authorization reaches nothing but the lookup of the named resource",
    seed_ref: "§2.1, §3.1, §10 cases 1-2",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let Some(code) = call.code() else { continue };
        let mut exchanges = context.transcript.exchanges_of_call(call.index);
        let offending = match table_category(code) {
            // Only a refusal about the resource itself may have looked the resource up.
            Category::Authorization if about_resource(call) => {
                exchanges.find(|exchange| exchange.record.method != "GET" || exchange.record.status_query)
            }
            Category::Input | Category::Protocol | Category::Authorization => exchanges.next(),
            _ => continue,
        };
        judgement.judged();
        if let Some(exchange) = offending {
            judgement.fail(
                format!("{code} was refused, yet request #{} reached the downstream", exchange.record.index),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

/// Whether a refusal is about the resource (the only refusal that needs the resource loaded). Executors that
/// give no `details.reason` get the benefit of the doubt.
fn about_resource(call: &CallRecord) -> bool {
    call.error().and_then(|error| error.detail_str("reason")).is_none_or(|reason| reason == "resource_not_accessible")
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn a_refusal_about_the_resource_may_have_looked_it_up() {
        history(
            "submit refund_order -> forbidden reason=resource_not_accessible
             request GET /orders/ord_1 -> 200",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_missing_scope_found_after_the_lookup_fails() {
        history(
            "submit refund_order -> forbidden reason=missing_scope
             request GET /orders/ord_1 -> 200",
        )
        .fails(&CHECK, "forbidden was refused, yet request #0 reached the downstream");
    }

    #[test]
    fn refused_input_that_reached_the_downstream_fails() {
        history("submit refund_order -> schema_violation; request POST /refunds -> committed")
            .fails(&CHECK, "schema_violation was refused");
    }

    #[test]
    fn calls_without_a_refusal_skip() {
        history("submit refund_order -> ok; request POST /refunds -> committed; retry -> dependency_unavailable")
            .skips(&CHECK);
    }
}
