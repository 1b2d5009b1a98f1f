//! `single-effect`: a business operation commits at most one effect across retries, duplicates, bursts and
//! reconciliations.
//!
//! Rule enforced here: effects are counted per operation in the ledger (identical repeatable writes once); a
//! committed request no call can be tied to is a violation of its own, since it may hide a second effect.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const SINGLE_EFFECT: CheckId = CheckId::new("single-effect");

pub(super) const CHECK: Check = Check {
    id: SINGLE_EFFECT,
    level: Level::Must,
    rule: "a business operation commits at most one effect across retries, duplicates, bursts and reconciliations",
    seed_ref: "§5.1, §12 Retry ⇒ SameBusinessOperation",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (op, operation) in context.side_effecting_operations() {
        judgement.judged();
        let effects = context.transcript.effects_of_op(op);
        if effects.len() > 1 {
            let ids: Vec<&str> = effects.iter().map(|effect| effect.effect_id.as_str()).collect();
            judgement.fail(
                format!("operation `{}` committed {} effects: {ids:?}", operation.name, effects.len()),
                context.op_evidence(op),
            );
        }
    }
    for exchange in context.transcript.exchanges.iter().filter(|exchange| exchange.op.is_none()) {
        if exchange.committed().is_some() {
            judgement.judged();
            judgement.fail(
                format!(
                    "request #{} committed an effect that no call of the scenario accounts for",
                    exchange.record.index
                ),
                vec![exchange.line()],
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
    fn a_retry_that_replays_commits_once() {
        history(
            "submit refund_order -> timeout_unknown
             request POST /refunds -> committed dropped key=k1
             retry -> ok reconciled
             request GET /refunds?idempotency_key=k1 -> 200 key=k1",
        )
        .passes(&CHECK);
    }

    #[test]
    fn identical_repeatable_writes_count_once() {
        history(
            "submit set_preference -> ok; request PUT /preferences/theme -> committed effect=pref_theme
             retry -> ok; request PUT /preferences/theme -> committed effect=pref_theme",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_retry_that_refunds_again_fails() {
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped
             retry -> ok; request POST /refunds -> committed",
        )
        .fails(&CHECK, "operation `op1` committed 2 effects: [\"fx_1\", \"fx_2\"]");
    }

    #[test]
    fn a_committed_request_no_call_accounts_for_fails() {
        history("submit get_order -> ok; request POST /refunds -> committed stray")
            .fails(&CHECK, "request #0 committed an effect that no call of the scenario accounts for");
    }

    #[test]
    fn reads_only_skip() {
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200").skips(&CHECK);
    }
}
