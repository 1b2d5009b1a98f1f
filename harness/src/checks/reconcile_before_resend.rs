//! `reconcile-before-resend`: after an unknown outcome, the operation's status is queried by its key before any
//! new side-effecting request.
//!
//! Rule enforced here: an outcome is unknown when the call said so (a code with effect "unknown") or was killed,
//! and its side-effecting request did reach the downstream; repeatable tools (PUT) are exempt. Only the tool's
//! own status query counts (the endpoint of its catalog `status` template): asking another service about the key
//! says nothing about this operation. A request tied to
//! the operation but to none of its calls counts as a later one when every call that may have sent it came after
//! the unknown outcome; it never makes a call's outcome unknown (a miss without `X-Request-Id`, never a false
//! failure).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{Answer, CallRecord};
use crate::world::endpoint_of_template;
use callproof_executor::error::Effect;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const RECONCILE_BEFORE_RESEND: CheckId = CheckId::new("reconcile-before-resend");

pub(super) const CHECK: Check = Check {
    id: RECONCILE_BEFORE_RESEND,
    level: Level::Must,
    rule: "after an unknown outcome, the operation's status is queried by its key before any new side-effecting request",
    seed_ref: "§5.3 UNKNOWN, §10 case 4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (op, operation) in context.transcript.operations.iter().enumerate() {
        let Some(entry) = context.tool(&operation.tool) else { continue };
        if entry.spec.repeatable || !entry.spec.risk.has_side_effect() {
            continue;
        }
        // A tool without a status template in the catalog: any status query by key counts (never a false failure).
        let status_endpoint = entry.downstream.status.as_deref().and_then(endpoint_of_template);
        let calls: Vec<&CallRecord> = context.calls_of(operation).collect();
        let Some(unknown_at) = calls.iter().position(|call| left_unknown(context, call)) else { continue };
        let after = &calls[unknown_at + 1..];
        let later: Vec<_> = context
            .transcript
            .exchanges_of_op(op)
            .filter(|exchange| {
                let senders = context.transcript.senders(exchange);
                !senders.is_empty() && senders.iter().all(|sender| after.iter().any(|call| call.index == sender.index))
            })
            .collect();
        if later.is_empty() {
            continue;
        }
        judgement.judged();
        let first_send = later.iter().position(|exchange| exchange.record.side_effect);
        let first_query = later.iter().position(|exchange| {
            exchange.record.status_query && status_endpoint.as_ref().is_none_or(|own| exchange.record.endpoint == *own)
        });
        if let Some(send) = first_send
            && first_query.is_none_or(|query| query > send)
        {
            let which = status_endpoint.as_ref().map_or_else(String::new, |own| format!(" ({own})"));
            judgement.fail(
                format!(
                    "after call #{} ended unknown, request #{} was sent again without a status query{which} first",
                    calls[unknown_at].index, later[send].record.index
                ),
                context.op_evidence(op),
            );
        }
    }
    judgement.outcome()
}

/// Whether a call left its operation's outcome unknown: it says so (or was killed) and its request did reach
/// the downstream (a call that sent nothing has nothing to reconcile, whatever it answered).
fn left_unknown(context: &Context<'_>, call: &CallRecord) -> bool {
    let unknown =
        call.answer == Answer::Killed || call.code().is_some_and(|code| code.info().effect == Effect::Unknown);
    unknown && context.transcript.exchanges_of_call(call.index).any(|exchange| exchange.record.side_effect)
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn a_status_query_before_the_resend_passes() {
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k1
             retry -> ok; request GET /refunds?idempotency_key=k1 -> 404 key=k1; request POST /refunds -> committed key=k1",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_resend_without_asking_first_fails() {
        history(
            "submit refund_order -> killed; request POST /refunds -> committed dropped
             retry -> ok; request POST /refunds -> committed",
        )
        .fails(&CHECK, "after call #0 ended unknown, request #1 was sent again without a status query (GET /refunds) first");
    }

    #[test]
    fn a_status_query_no_id_ties_to_a_call_still_comes_first() {
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k1
             retry -> ok; and -> operation_in_progress
             request GET /refunds?idempotency_key=k1 -> 404 key=k1 op
             request POST /refunds -> committed key=k1 call=1",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_resend_no_id_ties_to_a_call_without_asking_first_fails() {
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k1
             retry -> ok; and -> operation_in_progress
             request POST /refunds -> committed key=k1 op",
        )
        .fails(&CHECK, "after call #0 ended unknown, request #1 was sent again without a status query (GET /refunds) first");
    }

    #[test]
    fn a_status_query_of_another_service_does_not_count() {
        history(
            "submit send_email -> timeout_unknown; request POST /emails -> committed dropped key=k1
             retry -> ok; request GET /refunds?idempotency_key=k1 -> 404 key=k1; request POST /emails -> committed key=k1",
        )
        .fails(&CHECK, "request #2 was sent again without a status query (GET /emails) first");
        history(
            "submit send_email -> timeout_unknown; request POST /emails -> committed dropped key=k1
             retry -> ok; request GET /emails?idempotency_key=k1 -> 404 key=k1; request POST /emails -> committed key=k1",
        )
        .passes(&CHECK);
    }

    #[test]
    fn repeatable_tools_and_unknowns_that_sent_nothing_skip() {
        history(
            "submit set_preference -> timeout_unknown; request PUT /preferences/theme -> dropped
             retry -> ok; request PUT /preferences/theme -> committed",
        )
        .skips(&CHECK);
        history("submit refund_order -> timeout_unknown; retry -> ok; request POST /refunds -> committed").skips(&CHECK);
    }
}
