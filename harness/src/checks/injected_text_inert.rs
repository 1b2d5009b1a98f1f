//! `injected-text-inert`: tool output is data: text in a result triggers no side effect that no call asked for.
//!
//! Rule enforced here: judged only where instruction-like text reached the executor (the `inject_text` fault, or
//! the injection in a reply); then every side-effecting request must be its own call's tool's main request. A
//! request tied to its operation but to none of its calls is judged against the operation's tool (the calls of one
//! operation share it).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::world::INJECTION;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const INJECTED_TEXT_INERT: CheckId = CheckId::new("injected-text-inert");

pub(super) const CHECK: Check = Check {
    id: INJECTED_TEXT_INERT,
    level: Level::Must,
    rule: "tool output is data: text in a result triggers no side effect that no call asked for",
    seed_ref: "§7",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let injected = context.transcript.exchanges.iter().any(|exchange| {
        exchange.fault() == Some("inject_text") || exchange.record.reply.contains(&INJECTION[..20])
    });
    let mut judgement = Judgement::new();
    judgement.judged_if(injected);
    if !injected {
        return judgement.outcome();
    }
    for exchange in context.transcript.exchanges.iter().filter(|exchange| exchange.record.side_effect) {
        let asked = exchange
            .op
            .map(|op| &context.transcript.operations[op])
            .is_some_and(|operation| context.main_endpoint(&operation.tool) == exchange.record.endpoint);
        if !asked {
            judgement.fail(
                format!(
                    "request #{} ({}) was sent without any call asking for it",
                    exchange.record.index, exchange.record.endpoint
                ),
                context.transcript.lines(),
            );
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn an_injection_that_changes_nothing_passes() {
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200 fault=inject_text").passes(&CHECK);
    }

    #[test]
    fn a_deletion_nobody_asked_for_fails() {
        history(
            "submit get_order -> ok
             request GET /orders/ord_1 -> 200 fault=inject_text
             request DELETE /accounts/acct_victim -> committed",
        )
        .fails(&CHECK, "request #1 (DELETE /accounts) was sent without any call asking for it");
    }

    #[test]
    fn a_side_effect_no_id_ties_to_a_call_is_judged_against_its_operations_tool() {
        history(
            "burst refund_order -> ok; and -> operation_in_progress
             request GET /orders/ord_1 -> 200 fault=inject_text op
             request POST /refunds -> committed op",
        )
        .passes(&CHECK);
        history(
            "burst refund_order -> ok; and -> operation_in_progress
             request GET /orders/ord_1 -> 200 fault=inject_text op
             request DELETE /accounts/acct_victim -> committed op",
        )
        .fails(&CHECK, "request #1 (DELETE /accounts) was sent without any call asking for it");
    }

    #[test]
    fn without_injected_text_it_skips() {
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200").skips(&CHECK);
    }
}
