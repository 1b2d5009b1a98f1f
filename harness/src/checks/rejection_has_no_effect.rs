//! `rejection-has-no-effect`: refused input reaches no downstream; a refused authorization reaches nothing but
//! the lookup of the named resource.
//!
//! Rule enforced here: the layer of a refusal is the code table's category of its code; only a refusal about
//! the resource itself (`details.reason = resource_not_accessible`, or no reason) may have read it first. A
//! request tied to its operation but to none of the calls in flight is charged only when it was forbidden to
//! every one of them.

use super::{Check, CheckId, Context, Judgement, Level, Outcome, table_category};
use crate::transcript::{CallRecord, Exchange};
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
        if !refused(call) {
            continue;
        }
        judgement.judged();
        if let Some(exchange) =
            context.transcript.exchanges_of_call(call.index).find(|exchange| forbidden(call, exchange))
        {
            judgement.fail(
                format!("{code} was refused, yet request #{} reached the downstream", exchange.record.index),
                context.evidence(call),
            );
        }
    }
    for (exchange, senders) in context.shared_requests() {
        if senders.iter().all(|call| refused(call) && forbidden(call, exchange)) {
            judgement.judged();
            judgement.fail(
                format!("every call that may have sent request #{} was refused, yet it reached the downstream", exchange.record.index),
                context.shared_evidence(exchange),
            );
        }
    }
    judgement.outcome()
}

/// Whether a call was refused for its input, protocol or authorization (the code table's category).
fn refused(call: &CallRecord) -> bool {
    call.code()
        .is_some_and(|code| matches!(table_category(code), Category::Input | Category::Protocol | Category::Authorization))
}

/// Whether a refused call may not have sent `exchange`: only a refusal about the resource itself may have
/// looked the resource up.
fn forbidden(call: &CallRecord, exchange: &Exchange) -> bool {
    let about = call.code().is_some_and(|code| table_category(code) == Category::Authorization) && about_resource(call);
    !about || exchange.record.method != "GET" || exchange.record.status_query
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
    fn a_request_no_id_ties_to_a_call_is_not_charged_while_one_call_in_flight_may_send_it() {
        history(
            "burst refund_order -> schema_violation; and -> ok
             request POST /refunds -> committed op",
        )
        .passes(&CHECK);
        history(
            "burst refund_order -> forbidden reason=missing_scope; and -> forbidden reason=resource_not_accessible
             request GET /orders/ord_1 -> 200 op",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_request_no_id_ties_to_a_call_fails_when_every_call_in_flight_was_refused() {
        history(
            "burst refund_order -> schema_violation; and -> schema_violation
             request POST /refunds -> committed op",
        )
        .fails(&CHECK, "every call that may have sent request #0 was refused, yet it reached the downstream");
    }

    #[test]
    fn calls_without_a_refusal_skip() {
        history("submit refund_order -> ok; request POST /refunds -> committed; retry -> dependency_unavailable")
            .skips(&CHECK);
    }
}
