//! `failure-means-not-applied`: an error whose code says nothing was applied comes from a call that committed
//! nothing.
//!
//! Rule enforced here: Jepsen's second rule; "nothing applied" is the code table's effect `none`.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use callproof_executor::error::Effect;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const FAILURE_MEANS_NOT_APPLIED: CheckId = CheckId::new("failure-means-not-applied");

pub(super) const CHECK: Check = Check {
    id: FAILURE_MEANS_NOT_APPLIED,
    level: Level::Must,
    rule: "an error whose code says nothing was applied comes from a call that committed nothing",
    seed_ref: "§4.1, §6.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let Some(code) = call.code() else { continue };
        if code.info().effect != Effect::None {
            continue;
        }
        judgement.judged();
        let committed =
            context.transcript.exchanges_of_call(call.index).find(|exchange| exchange.committed().is_some());
        if let Some(exchange) = committed {
            judgement.fail(
                format!("{code} says nothing was applied, but request #{} committed an effect", exchange.record.index),
                context.evidence(call),
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
    fn a_definite_failure_that_committed_nothing_passes() {
        history("submit refund_order -> dependency_unavailable reason=unavailable; request POST /refunds -> 503")
            .passes(&CHECK);
    }

    #[test]
    fn a_timeout_after_the_commit_reported_as_not_started_fails() {
        history("submit refund_order -> timeout_not_started; request POST /refunds -> committed fault=commit_then_delay,ms=4000")
            .fails(&CHECK, "timeout_not_started says nothing was applied, but request #0 committed an effect");
    }

    #[test]
    fn unknown_outcomes_and_successes_skip() {
        history("submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped; retry -> ok")
            .skips(&CHECK);
    }
}
