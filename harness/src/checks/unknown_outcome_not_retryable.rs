//! `unknown-outcome-not-retryable`: a timeout after the effect committed, or a dropped answer, is timeout_unknown
//! and never retryable.
//!
//! Rule enforced here: judged on calls whose side-effecting request met `commit_then_drop` or
//! `commit_then_delay` and that did not answer ok.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use callproof_executor::ErrorCode;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const UNKNOWN_OUTCOME_NOT_RETRYABLE: CheckId = CheckId::new("unknown-outcome-not-retryable");

pub(super) const CHECK: Check = Check {
    id: UNKNOWN_OUTCOME_NOT_RETRYABLE,
    level: Level::Must,
    rule: "a timeout after the effect committed, or a dropped answer, is timeout_unknown and never retryable",
    seed_ref: "§4.1, §4.3, §10 case 4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let lost = context.transcript.exchanges_of_call(call.index).any(|exchange| {
            exchange.record.side_effect
                && exchange.fault().is_some_and(|name| name == "commit_then_drop" || name == "commit_then_delay")
        });
        if !lost || call.ok() {
            continue;
        }
        judgement.judged();
        let code = call.error().map_or("(none)", |error| error.wire_code.as_str());
        let retryable = call.error().is_some_and(|error| error.retryable == Some(true));
        if call.code() != Some(ErrorCode::TimeoutUnknown) || retryable {
            judgement.fail(
                format!(
                    "the effect committed and its answer was lost, but the call answered {code} retryable={retryable}"
                ),
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
    fn a_lost_answer_reported_as_unknown_passes() {
        history("submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped fault=commit_then_drop")
            .passes(&CHECK);
    }

    #[test]
    fn a_late_answer_reported_as_not_started_fails() {
        history("submit refund_order -> timeout_not_started; request POST /refunds -> committed fault=commit_then_delay,ms=4000")
            .fails(&CHECK, "the call answered timeout_not_started retryable=true");
    }

    #[test]
    fn an_unknown_outcome_flagged_retryable_fails() {
        history(
            "submit refund_order -> timeout_unknown retryable=true
             request POST /refunds -> committed dropped fault=commit_then_drop",
        )
        .fails(&CHECK, "answered timeout_unknown retryable=true");
    }

    #[test]
    fn no_lost_answer_or_an_ok_despite_the_fault_skips() {
        history("submit refund_order -> dependency_unavailable; request POST /refunds -> 503").skips(&CHECK);
        history("submit refund_order -> ok; request POST /refunds -> committed fault=commit_then_delay,ms=4000").skips(&CHECK);
    }
}
