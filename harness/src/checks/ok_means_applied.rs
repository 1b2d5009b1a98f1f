//! `ok-means-applied`: a successful answer for a side-effecting tool means exactly one committed effect.
//!
//! Rule enforced here: Jepsen's first rule, per business operation: once any call of it answers `ok`, the
//! ledger holds exactly one of its effects.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const OK_MEANS_APPLIED: CheckId = CheckId::new("ok-means-applied");

pub(super) const CHECK: Check = Check {
    id: OK_MEANS_APPLIED,
    level: Level::Must,
    rule: "a successful answer for a side-effecting tool means exactly one committed effect",
    seed_ref: "§5.1, §12",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (op, operation) in context.side_effecting_operations() {
        let Some(ok_call) = context.calls_of(operation).find(|call| call.ok()) else { continue };
        judgement.judged();
        let effects = context.transcript.effects_of_op(op).len();
        if effects != 1 {
            judgement.fail(
                format!(
                    "call #{} answered ok, but operation `{}` committed {effects} effects",
                    ok_call.index, operation.name
                ),
                context.op_evidence(op),
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
    fn ok_with_one_committed_effect_passes() {
        history("submit refund_order -> ok; request POST /refunds -> committed").passes(&CHECK);
    }

    #[test]
    fn ok_with_nothing_committed_fails() {
        history("submit refund_order -> ok; request POST /refunds -> 503")
            .fails(&CHECK, "call #0 answered ok, but operation `op1` committed 0 effects");
    }

    #[test]
    fn operations_that_never_answered_ok_skip() {
        history("submit refund_order -> dependency_unavailable; request POST /refunds -> 503").skips(&CHECK);
    }
}
